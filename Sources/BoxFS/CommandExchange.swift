import Foundation
import Synchronization

/// One open `CommandFile`: the request as it is written, then the answer, computed once by the first read and
/// served to every read after it (`boxfs` reads from offset 0 until the end).
final class CommandExchange: Sendable {
    private enum State {
        case collecting(Data)
        case running(Task<Data, Never>)
        case answered(Data)
    }

    /// The folder whose command file this is.
    let folder: UInt64
    private let state = OwnLock("a command file's exchange", State.collecting(Data()))

    /// `request`: already written (a query name's, `CommandQueries`).
    init(folder: UInt64, request: Data = Data()) {
        self.folder = folder
        state.withLock { $0 = .collecting(request) }
    }

    /// Appends request bytes written at `offset` (writes follow each other; the request is one JSON object).
    func write(_ data: Data, offset: Int64) throws(FSError) -> Int {
        try state.withLock { state throws(FSError) in
            guard case .collecting(var request) = state else {
                throw FSError(.busy, "\(CommandFile.name): the request was already answered; open it again")
            }
            guard offset == Int64(request.count) else { throw FSError(.invalidArgument, "\(CommandFile.name): write the request in order") }
            guard request.count + data.count <= CommandFile.maxRequestBytes else {
                throw FSError(.tooLarge, "\(CommandFile.name): the request is too long")
            }
            request.append(data)
            state = .collecting(request)
            return data.count
        }
    }

    /// The answer: `run` is given the request at the first call and its answer kept; later calls (and calls
    /// made meanwhile) get the same bytes. A caller interrupted while it waits cancels `run`.
    func answer(_ run: @escaping @Sendable (Data) async -> Data) async -> Data {
        let task = state.withLock { state -> Task<Data, Never> in
            switch state {
            case .answered(let data):
                return Task { data }
            case .running(let task):
                return task
            case .collecting(let request):
                let task = Task { [self] in
                    let answer = await run(request)
                    self.state.withLock { $0 = .answered(answer) }
                    return answer
                }
                state = .running(task)
                return task
            }
        }
        return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    }
}
