// sd-bus from libsystemd-dev: the bus hot path (FocusBridgeDBus's SdBus* and BusMessage only).
#include <systemd/sd-bus.h>
#include <poll.h>
