#include <xcb/xcb.h>
#include <dlfcn.h>
#include <stdlib.h>

/* libxcb, opened when an X11 session asks for it (X11Windows.swift) rather than linked: the
 * daemon of a Wayland or GNOME session never loads it and the four libraries it brings
 * (libXau, libXdmcp, libbsd, libmd), resident memory it has no use for (docs/BENCHMARKS.md). */
typedef struct focus_xcb {
    __typeof__(xcb_connect) *_Nonnull connect;
    __typeof__(xcb_connection_has_error) *_Nonnull connection_has_error;
    __typeof__(xcb_disconnect) *_Nonnull disconnect;
    __typeof__(xcb_flush) *_Nonnull flush;
    __typeof__(xcb_get_file_descriptor) *_Nonnull get_file_descriptor;
    __typeof__(xcb_get_setup) *_Nonnull get_setup;
    __typeof__(xcb_setup_roots_iterator) *_Nonnull setup_roots_iterator;
    __typeof__(xcb_screen_next) *_Nonnull screen_next;
    __typeof__(xcb_intern_atom) *_Nonnull intern_atom;
    __typeof__(xcb_intern_atom_reply) *_Nonnull intern_atom_reply;
    __typeof__(xcb_change_window_attributes) *_Nonnull change_window_attributes;
    __typeof__(xcb_poll_for_event) *_Nonnull poll_for_event;
    __typeof__(xcb_get_property) *_Nonnull get_property;
    __typeof__(xcb_get_property_reply) *_Nonnull get_property_reply;
    __typeof__(xcb_get_property_value_length) *_Nonnull get_property_value_length;
    __typeof__(xcb_get_property_value) *_Nonnull get_property_value;
} focus_xcb;

/* The functions, opened once; NULL when libxcb.so.1 or one of them cannot be found. */
static inline const focus_xcb *_Nullable focus_xcb_load(void) {
    static focus_xcb table;
    static int state; /* 0: not tried, 1: loaded, -1: not there */
    if (state != 0) return state == 1 ? &table : NULL;
    state = -1;
    void *library = dlopen("libxcb.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return NULL;
#define FOCUS_XCB(name) \
    if ((*(void **)&table.name = dlsym(library, "xcb_" #name)) == NULL) return NULL;
    FOCUS_XCB(connect) FOCUS_XCB(connection_has_error) FOCUS_XCB(disconnect) FOCUS_XCB(flush)
    FOCUS_XCB(get_file_descriptor) FOCUS_XCB(get_setup) FOCUS_XCB(setup_roots_iterator)
    FOCUS_XCB(screen_next) FOCUS_XCB(intern_atom) FOCUS_XCB(intern_atom_reply)
    FOCUS_XCB(change_window_attributes) FOCUS_XCB(poll_for_event) FOCUS_XCB(get_property)
    FOCUS_XCB(get_property_reply) FOCUS_XCB(get_property_value_length) FOCUS_XCB(get_property_value)
#undef FOCUS_XCB
    state = 1;
    return &table;
}
