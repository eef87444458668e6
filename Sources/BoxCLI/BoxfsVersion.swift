/// The version `boxfs --version` and `mount.boxfs --version` print.
enum BoxfsVersion {
    static let string = "0.9.0"
}
