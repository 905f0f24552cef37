import NewsstandKit

extension Store {
    /// The store's state for one line of a report: a failure's own sentence, else the summary
    /// ("Offline: showing the catalog from …"), with what the last load could not read.
    var statusLine: String {
        if case .failed(let error) = status { return error.message }
        return ([status.summary] + remarks.map(\.description)).joined(separator: " ")
    }
}
