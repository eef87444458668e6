import Foundation
import Testing
@testable import Transfers

/// Read-ahead is kept until it is read; what was read goes first, and only a little of it is kept.
@Suite struct MemoryBlocksTests {
    func key(_ index: Int64) -> MemoryBlocks.Key { MemoryBlocks.Key(fileID: "1", version: "v", index: index) }
    let block = Data(count: 100)

    @Test func blocksAlreadyReadAreEvictedBeforeUnreadOnes() {
        var memory = MemoryBlocks(capacity: 400)
        for index: Int64 in 0..<4 { memory.put(key(index), block) }
        _ = memory.get(key(3))  // the newest block is read: it goes first, not the oldest unread one
        memory.put(key(4), block)
        #expect(!memory.contains(key(3)))
        #expect((0..<3).allSatisfy { memory.contains(key($0)) } && memory.contains(key(4)))
        memory.put(key(5), block)
        #expect((0..<3).allSatisfy { memory.contains(key($0)) }, "unread blocks stay beyond the capacity")
        #expect(memory.bytes == 500 && memory.unreadBytes == 500)
    }

    @Test func aBlockCountsAsReadOnceItsReadersTookAllItsBytes() {
        var memory = MemoryBlocks(capacity: 400)
        memory.put(key(0), block)
        _ = memory.consume(key(0), bytes: 60)
        #expect(memory.readBytes == 0, "a block read in part keeps its place")
        _ = memory.consume(key(0), bytes: 40)
        #expect(memory.readBytes == 100)
        _ = memory.consume(key(0), bytes: .max)
        _ = memory.consume(key(0), bytes: .max)
        #expect(memory.readBytes == 100, "taken again, whole, any number of times")
    }

    @Test func unreadBlocksGoOnlyBeyondTheHardCapacityOldestFirst() {
        var memory = MemoryBlocks(capacity: 400)
        for index: Int64 in 0..<16 { memory.put(key(index), block) }
        #expect(memory.bytes == 1600 && memory.hardCapacity == 1600)
        memory.put(key(16), block)
        #expect(!memory.contains(key(0)), "beyond four times the capacity, the oldest unread block goes")
        #expect(memory.bytes == 1600)
        memory.markRead(fileID: "1", version: "v", from: 10)
        #expect(memory.unreadBytes == 900, "a gone reader's blocks count as read")
        #expect(memory.bytes <= 1000 && memory.readBytes <= 100, "and leave first")
    }

    @Test func readBlocksStayWithinAQuarterOfTheCapacity() {
        var memory = MemoryBlocks(capacity: 800)
        for index: Int64 in 0..<8 { memory.put(key(index), block) }
        for index: Int64 in 0..<5 { _ = memory.get(key(index)) }
        #expect(memory.readBytes == 200)
        #expect(!memory.contains(key(0)) && !memory.contains(key(1)) && !memory.contains(key(2)))
        #expect((3..<8).allSatisfy { memory.contains(key($0)) })
        memory.put(key(8), block, wasRead: true)
        #expect(memory.readBytes == 200 && !memory.contains(key(3)))
        memory.remove(fileID: "1")
        #expect(memory.bytes == 0 && memory.readBytes == 0)
    }
}
