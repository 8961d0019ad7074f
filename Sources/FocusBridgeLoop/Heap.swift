import CGLib

/// The C heap.
public enum Heap {
    /// Returns freed memory to the system (glibc keeps it after a burst otherwise).
    ///
    /// `malloc_trim` gives back every whole page of free memory, but not the chunks in the main
    /// thread's tcache: up to 7 freed chunks of each of its 64 sizes (up to 1 KiB), kept for
    /// reuse and counted as in use. After a burst they are the last ones freed, scattered one
    /// or two a page through the heap, and keep those pages resident (docs/BENCHMARKS.md,
    /// "What the heap held after the burst"). So they are swapped first for chunks taken where
    /// the heap is already resident or in one run: each size's cached chunks are allocated
    /// (emptying the cache), as many again from the heap, those freed (filling the cache), then
    /// the old ones freed past the full cache, into the heap, where the trim gives their pages
    /// back. Only what malloc and free promise is relied on; with another allocator or
    /// other tcache settings it merely helps less.
    public static func trim() {
        malloc_trim(0)
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 2 * sizes * perSize) { slots in
            let cached = UnsafeMutableBufferPointer(rebasing: slots[..<(sizes * perSize)])
            let fresh = UnsafeMutableBufferPointer(rebasing: slots[(sizes * perSize)...])
            for size in 0..<sizes {
                for n in 0..<perSize { cached[size * perSize + n] = malloc(request(size)) }
            }
            for size in 0..<sizes {
                for n in 0..<perSize { fresh[size * perSize + n] = malloc(request(size)) }
            }
            for pointer in fresh { free(pointer) }
            for pointer in cached { free(pointer) }
        }
        malloc_trim(0)
    }

    /// glibc's tcache: 64 sizes of chunk, 16 bytes apart from 32, at most 7 chunks each.
    private static let sizes = 64
    private static let perSize = 7
    /// A request that gets a chunk of tcache size `index` (8 bytes of header, 16-byte steps).
    private static func request(_ index: Int) -> Int { 24 + 16 * index }
}
