/// What an HTTP status that is not success means for the user: the one place statuses become errors.
public enum HTTPFailure {
    /// What was asked for, which changes the advice.
    public enum Subject: Sendable {
        case catalog(address: String)
        case issue(isFree: Bool)
        case cover
    }

    /// The error for a response's status, or nil for a success. 5xx, 408 and 429 are retryable,
    /// except a 429 that locks a login (retrying would only prolong it). A refusal for want of
    /// credentials is worded by `advice`.
    public static func error(_ response: TransferResponse, subject: Subject, advice: AuthenticationAdvice) -> NewsstandError? {
        let status = response.statusCode
        switch status {
        case 200..<300:
            return nil
        case 401, 402, 403:
            return advice.error(for: response, subject: subject)
        case 429 where AuthenticationAdvice.isLockout(response):
            return advice.error(for: response, subject: subject)
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
        default:
            return NewsstandError(.httpStatus, "The server answered HTTP \(status).")
        }
    }
}
