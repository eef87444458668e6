/// Keys with values in least-recently-used order: O(1) insert, touch, remove and pop-oldest.
///
/// A doubly linked list kept in an array of slots (indices instead of references, so the whole
/// structure is one value type), plus a dictionary from key to slot. Freed slots are reused.
struct LRUList<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var older: Int?
        var newer: Int?
    }

    private var nodes: [Node?] = []
    private var freeSlots: [Int] = []
    private var slots: [Key: Int] = [:]
    /// The least recently used slot (evicted first) and the most recently used one.
    private var oldest: Int?
    private var newest: Int?

    var count: Int { slots.count }

    func value(for key: Key) -> Value? {
        slots[key].flatMap { nodes[$0]?.value }
    }

    /// Inserts or replaces `key` as the most recently used; returns the value it replaced.
    @discardableResult
    mutating func insert(_ key: Key, _ value: Value) -> Value? {
        let replaced = remove(key)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = nodes.count
            nodes.append(nil)
        }
        nodes[slot] = Node(key: key, value: value, older: newest, newer: nil)
        if let newest { nodes[newest]?.newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
        slots[key] = slot
        return replaced
    }

    /// Marks `key` as the most recently used; returns its value, or nil if absent.
    mutating func touch(_ key: Key) -> Value? {
        guard let slot = slots[key], let node = nodes[slot] else { return nil }
        if slot != newest {
            unlink(slot)
            nodes[slot] = Node(key: node.key, value: node.value, older: newest, newer: nil)
            if let newest { nodes[newest]?.newer = slot }
            newest = slot
            if oldest == nil { oldest = slot }
        }
        return node.value
    }

    @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = slots.removeValue(forKey: key), let node = nodes[slot] else { return nil }
        unlink(slot)
        nodes[slot] = nil
        freeSlots.append(slot)
        return node.value
    }

    /// The least recently used entry, without removing it.
    var leastRecent: (key: Key, value: Value)? {
        guard let oldest, let node = nodes[oldest] else { return nil }
        return (node.key, node.value)
    }

    /// Keys from least to most recently used (for tests and diagnostics; O(n)).
    var keysOldestFirst: [Key] {
        var keys: [Key] = []
        var cursor = oldest
        while let slot = cursor, let node = nodes[slot] {
            keys.append(node.key)
            cursor = node.newer
        }
        return keys
    }

    /// Detaches `slot` from its neighbours, leaving the node itself in place.
    private mutating func unlink(_ slot: Int) {
        guard let node = nodes[slot] else { return }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
    }
}
