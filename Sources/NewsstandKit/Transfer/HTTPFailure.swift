/// What an HTTP status that is not success means for the user: the one place statuses become errors.
public enum HTTPFailure {
    /// What was asked for, which changes the advice.
    public enum Subject: Sendable {
        case catalog(address: String)
        case issue(isFree: Bool)
        case cover
    }

    /// The error for `status`, or nil for a success. 5xx, 408 and 429 are retryable.
    public static func error(status: Int, subject: Subject, credentialsHint: String = "add credentials to the subscription (newsstand subscribe --user) or ~/.netrc") -> NewsstandError? {
        switch status {
        case 200..<300:
            return nil
        case 401, 402, 403:
            switch subject {
            case .issue(isFree: false):
                return NewsstandError(.unauthorized, "This issue is not free: the server wants a subscription (HTTP \(status)); \(credentialsHint).")
            case .catalog:
                return NewsstandError(.unauthorized, "The catalog server refused access (HTTP \(status)): it needs credentials; \(credentialsHint).")
            default:
                return NewsstandError(.unauthorized, "The server refused access (HTTP \(status)); \(credentialsHint).")
            }
        case 404, 410:
            switch subject {
            case .catalog(let address):
                return NewsstandError(.notFound, "There is no catalog at \(TextSanitizer.inert(address)) (HTTP \(status)); check the URL.")
            case .issue:
                return NewsstandError(.notFound, "The server has no such issue (HTTP \(status)); the catalog may be out of date: refresh it.")
            case .cover:
                return NewsstandError(.notFound, "The server has no such cover (HTTP \(status)).")
            }
        case 408, 429, 500...599:
            return NewsstandError(.httpStatus, "The server is busy or failing (HTTP \(status)); try again later.", retryable: true)
        case 300..<400:
            return NewsstandError(.httpStatus, "The server answered a redirect (HTTP \(status)) without saying where to.")
        default:
            return NewsstandError(.httpStatus, "The server answered HTTP \(status).")
        }
    }
}
