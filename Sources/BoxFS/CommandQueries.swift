import Foundation

/// Requests carried in a name, for read-only mounts (`ro`, `downscope`): there the kernel refuses to open
/// `CommandFile` for writing, so a command that only reads Box (`versions`, `trash list`, `search`) looks up
/// `<folder>/.boxfs\command\<request as base64url JSON>` instead and reads the answer from that name, opened
/// read-only. Each such name gets an inode of its own (`CommandFile.queryInode`), kept until the kernel forgets
/// it; opening it again runs the request again. A request that would change Box is no such name (ENOENT).
/// A value type guarded by the `FileSystem`'s mutex.
struct CommandQueries {
    struct Query {
        let folder: UInt64
        let request: Data
        var lookups: UInt64
    }

    private var byInode: [UInt64: Query] = [:]
    private var byName: [String: UInt64] = [:]
    private var next: UInt64 = 1

    /// The inode of the query `name` of folder `folder` (the same one while the kernel holds it), counting the
    /// kernel's reference.
    mutating func lookup(folder: UInt64, name: String, request: Data) -> UInt64 {
        let key = "\(folder)/\(name)"
        if let inode = byName[key] {
            byInode[inode]?.lookups += 1
            return inode
        }
        let inode = CommandFile.queryInode(next)
        next += 1
        byInode[inode] = Query(folder: folder, request: request, lookups: 1)
        byName[key] = inode
        return inode
    }

    func query(_ inode: UInt64) -> Query? { byInode[inode] }

    /// The kernel dropped `count` references; the query goes with the last.
    mutating func forget(_ inode: UInt64, count: UInt64) {
        guard var query = byInode[inode] else { return }
        query.lookups = query.lookups > count ? query.lookups - count : 0
        guard query.lookups == 0 else {
            byInode[inode] = query
            return
        }
        byInode[inode] = nil
        byName = byName.filter { $0.value != inode }
    }

    /// The request a query name carries, if it is one: base64url (no padding) of a `CommandRequest` whose
    /// operation only reads.
    static func request(inName name: String) -> Data? {
        guard name.hasPrefix(CommandFile.queryPrefix) else { return nil }
        var text = String(name.dropFirst(CommandFile.queryPrefix.count))
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: text),
              let request = try? CommandFile.decoder.decode(CommandRequest.self, from: data), !request.op.changesBox
        else { return nil }
        return data
    }
}
