#include <glib.h>
#include <glib-unix.h>
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <malloc.h>
