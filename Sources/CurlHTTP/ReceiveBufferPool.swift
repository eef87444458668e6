#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Page-aligned memory for large response bodies, handed back here (not to the kernel) when the
/// last `Data` that shares it goes away, so the next large body lands in memory that is already
/// mapped.
///
/// Why: a freshly mapped buffer costs a page fault per 4 KiB on first touch, and on a VM that is
/// as much CPU as the download itself (a 1 GiB read in 8 MiB ranges faulted 1 GiB of new memory;
/// perf showed ~10 % of the daemon in page faults). malloc does not help: it returns large chunks
/// to the kernel on free. Buffers are page-aligned, so a block-sized slice of one can be written
/// with `O_DIRECT`.
///
/// Sizes are rounded up to a power of two from `minimumSize` to `maximumSize`; larger or smaller
/// bodies use ordinary memory. At most `maximumIdleBytes` wait here for reuse for good; up to
/// `lingeringIdleBytes` wait while buffers are being taken, and what is beyond `maximumIdleBytes` is
/// unmapped once none was taken for `linger`. Beyond `lingeringIdleBytes`, buffers are unmapped at once.
/// Thread-safe: buffers come back from whichever thread frees the last reference.
///
/// Why lingering: a stream's buffers stay alive in bursts (blocks in memory, blocks waiting for the disk
/// cache), so the buffers idle at once swing by tens of MiB. With 24 MiB kept, most of a cold 1 GiB read's
/// buffers were unmapped and mapped afresh a moment later (zeroing their huge pages cost 12 % of the
/// daemon's CPU); the shared pool keeps the swing while a read goes on, and gives it back after it.
public final class ReceiveBufferPool: Sendable {
    public static let shared = ReceiveBufferPool(lingeringIdleBytes: 128 << 20)

    public let minimumSize: Int
    public let maximumSize: Int
    public let maximumIdleBytes: Int
    public let lingeringIdleBytes: Int
    public let linger: Duration
    /// Idle buffers by size, as addresses (pointers are not Sendable; the pool owns the memory); buffers taken
    /// so far; whether a trim down to `maximumIdleBytes` is scheduled.
    private let idle: Mutex<(buffers: [Int: [UInt]], bytes: Int, takes: UInt64, trimScheduled: Bool)>

    /// - Parameter lingeringIdleBytes: idle bytes kept while the pool is in use (nil: `maximumIdleBytes`).
    public init(minimumSize: Int = 1 << 20, maximumSize: Int = 64 << 20, maximumIdleBytes: Int = 24 << 20,
                lingeringIdleBytes: Int? = nil, linger: Duration = .seconds(2)) {
        self.minimumSize = minimumSize
        self.maximumSize = maximumSize
        self.maximumIdleBytes = maximumIdleBytes
        self.lingeringIdleBytes = max(maximumIdleBytes, lingeringIdleBytes ?? maximumIdleBytes)
        self.linger = linger
        idle = Mutex(([:], 0, 0, false))
    }

    /// Bytes of memory waiting for reuse (tests, diagnostics).
    public var idleBytes: Int { idle.withLock { $0.bytes } }

    /// The pooled size for a body of `count` bytes, or nil when such a body is not pooled.
    public func size(for count: Int) -> Int? {
        guard count >= minimumSize / 2, count <= maximumSize else { return nil }
        var size = minimumSize
        while size < count { size <<= 1 }
        return size
    }

    /// A page-aligned buffer of exactly `size` bytes (a value from `size(for:)`), reused when one is
    /// idle; nil if no memory could be mapped. Give it back with `give(_:size:)`.
    public func take(size: Int) -> UnsafeMutableRawPointer? {
        let reused = idle.withLock { idle -> UInt? in
            idle.takes &+= 1
            guard let address = idle.buffers[size]?.popLast() else { return nil }
            idle.bytes -= size
            return address
        }
        if let reused { return UnsafeMutableRawPointer(bitPattern: reused) }
        return Self.map(size)
    }

    private static let hugePage = 2 << 20

    /// Fresh memory. Buffers of whole huge pages are aligned to 2 MiB and marked for transparent huge
    /// pages, so the first touch costs one fault per 2 MiB instead of one per 4 KiB (where THP is
    /// enabled for `madvise`, as it usually is).
    private static func map(_ size: Int) -> UnsafeMutableRawPointer? {
        guard size % hugePage == 0 else {
            let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            return mapped == MAP_FAILED ? nil : mapped
        }
        // Map one huge page more, then trim both ends so the buffer starts on a 2 MiB boundary.
        guard let raw = mmap(nil, size + hugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              raw != MAP_FAILED else { return nil }
        let address = UInt(bitPattern: raw)
        let aligned = (address + UInt(hugePage) - 1) / UInt(hugePage) * UInt(hugePage)
        let head = Int(aligned - address), tail = hugePage - head
        if head > 0 { munmap(raw, head) }
        if tail > 0 { munmap(UnsafeMutableRawPointer(bitPattern: aligned + UInt(size)), tail) }
        let buffer = UnsafeMutableRawPointer(bitPattern: aligned)!
        #if os(Linux)
        _ = madvise(buffer, size, 14)  // MADV_HUGEPAGE (not exported by Glibc's module)
        #endif
        return buffer
    }

    /// Takes a buffer back (from `take`); unmaps it when enough are idle already.
    public func give(_ pointer: UnsafeMutableRawPointer, size: Int) {
        let (kept, trimAfter) = idle.withLock { idle -> (Bool, UInt64?) in
            guard idle.bytes + size <= lingeringIdleBytes else { return (false, nil) }
            idle.buffers[size, default: []].append(UInt(bitPattern: pointer))
            idle.bytes += size
            guard idle.bytes > maximumIdleBytes, !idle.trimScheduled else { return (true, nil) }
            idle.trimScheduled = true
            return (true, idle.takes)
        }
        if !kept { munmap(pointer, size) }
        if let trimAfter { scheduleTrim(ifNoTakeSince: trimAfter) }
    }

    /// After `linger`: unmaps idle buffers beyond `maximumIdleBytes` (largest first) if no buffer was taken
    /// meanwhile, else looks again a `linger` later.
    private func scheduleTrim(ifNoTakeSince takes: UInt64) {
        let nanoseconds = linger.components.seconds * 1_000_000_000 + linger.components.attoseconds / 1_000_000_000
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
            let (unmapped, again) = idle.withLock { idle -> ([(UInt, Int)], UInt64?) in
                guard idle.takes == takes else { return ([], idle.takes) }
                var unmapped: [(UInt, Int)] = []
                for size in idle.buffers.keys.sorted(by: >) {
                    while idle.bytes > maximumIdleBytes, let address = idle.buffers[size]?.popLast() {
                        unmapped.append((address, size))
                        idle.bytes -= size
                    }
                }
                idle.trimScheduled = false
                return (unmapped, nil)
            }
            for (address, size) in unmapped { munmap(UnsafeMutableRawPointer(bitPattern: address), size) }
            if let again { scheduleTrim(ifNoTakeSince: again) }
        }
    }
}

/// One body being received into a pooled buffer. Confined to the driver thread until `takeData`
/// hands the memory to a `Data`, whose deallocator gives it back to the pool; a buffer never taken
/// (failed or superseded response) goes back when this object is released.
final class PooledBody {
    private let pool: ReceiveBufferPool
    private let size: Int
    private var base: UnsafeMutableRawPointer?
    private(set) var count = 0

    /// Nil when the pool has no buffer for `expectedCount` bytes.
    init?(pool: ReceiveBufferPool, expectedCount: Int) {
        guard let size = pool.size(for: expectedCount), let base = pool.take(size: size) else { return nil }
        self.pool = pool
        self.size = size
        self.base = base
    }

    deinit {
        if let base { pool.give(base, size: size) }
    }

    /// Appends `chunk`; false (nothing appended) when it does not fit.
    func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard let base, let source = chunk.baseAddress, count + chunk.count <= size else { return false }
        (base + count).copyMemory(from: source, byteCount: chunk.count)
        count += chunk.count
        return true
    }

    /// The bytes so far as a copy in ordinary memory (when the body outgrows the buffer).
    func copiedData() -> Data {
        guard let base else { return Data() }
        return Data(bytes: base, count: count)
    }

    /// The body, sharing the buffer; the buffer returns to the pool when the last `Data` that shares it
    /// (slices included) is released. Call once.
    func takeData() -> Data {
        guard let base else { return Data() }
        self.base = nil
        guard count > 0 else {
            pool.give(base, size: size)
            return Data()
        }
        let pool = self.pool, size = self.size
        return Data(bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in
            pool.give(pointer, size: size)
        })
    }
}
