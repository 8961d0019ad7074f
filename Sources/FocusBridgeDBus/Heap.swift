import CGLib

/// The C heap.
public enum Heap {
    /// Returns freed memory to the system (glibc keeps it after a burst otherwise).
    public static func trim() { malloc_trim(0) }
}
