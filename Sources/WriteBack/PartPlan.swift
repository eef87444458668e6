/// Which parts of a chunked session still have to be sent: a pure function of the file size, the
/// session's part size and the offsets Box already holds.
public enum PartPlan {
    /// Byte ranges of the parts not in `uploadedOffsets`, in file order.
    public static func missing(fileSize: Int64, partSize: Int64, uploadedOffsets: Set<Int64>) -> [Range<Int64>] {
        guard partSize > 0, fileSize > 0 else { return [] }
        var ranges: [Range<Int64>] = []
        var offset: Int64 = 0
        while offset < fileSize {
            let end = min(offset + partSize, fileSize)
            if !uploadedOffsets.contains(offset) { ranges.append(offset..<end) }
            offset = end
        }
        return ranges
    }
}
