import Foundation

/// The loop that answers connections, and the faults it injects into answers.
extension TestServer {
    // MARK: Serving

    func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(connection)
                state.countedConnections.insert(connection)
                state.maximumOpenConnections = max(state.maximumOpenConnections, state.countedConnections.count)
                return true
            }
            guard accepted else {
                close(connection)
                return
            }
            var noDelay: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            let thread = Thread { [self] in
                handle(connection)
                state.withLock { state in
                    state.connections.remove(connection)
                    state.countedConnections.remove(connection)
                }
                close(connection)
                signalChange()
            }
            thread.name = "TestServer.connection"
            thread.start()
        }
    }

    func readRequest(_ connection: Int32) -> Request? {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while data.range(of: Data("\r\n\r\n".utf8)) == nil {
            let count = recv(connection, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            data.append(contentsOf: chunk[0..<count])
            if data.count > 65536 { return nil }
        }
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let target = String(requestLine[1])
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        return Request(method: String(requestLine[0]), path: path, target: target, headers: headers, receivedAt: DispatchTime.now().uptimeNanoseconds)
    }

    func handle(_ connection: Int32) {
        guard let request = readRequest(connection) else { return }
        let (digest, nonce, staleNonces) = state.withLock { ($0.requiredDigest, $0.digestNonce, $0.staleNonces) }
        if let digest, !Self.verifyDigest(request.headers["authorization"], method: request.method, user: digest.user, password: digest.password, nonce: nonce) {
            let stale = staleNonces.contains { Self.verifyDigest(request.headers["authorization"], method: request.method, user: digest.user, password: digest.password, nonce: $0) }
            let challenge = "WWW-Authenticate: Digest realm=\"\(Self.digestRealm)\", nonce=\"\(nonce)\", qop=\"auth\", algorithm=MD5" + (stale ? ", stale=true" : "")
            state.withLock { $0.requests.append(request) }
            send(connection, head: "HTTP/1.1 401 Unauthorized", headers: [challenge, "Content-Length: 0"])
            return
        }
        let (resource, fault, redirect, authorization) = state.withLock { state -> (Resource?, Fault?, String?, String?) in
            state.requests.append(request)
            var fault: Fault?
            if !state.anyPathFaults.isEmpty {
                fault = state.anyPathFaults.removeFirst()
            } else if var queue = state.faults[request.path], !queue.isEmpty {
                fault = queue.removeFirst()
                state.faults[request.path] = queue
            }
            // A resource served with a query (`/feed?page=2`) answers only that query.
            return (state.resources[request.target] ?? state.resources[request.path], fault, state.redirects[request.path], state.requiredAuthorization)
        }
        signalChange()

        if let authorization, request.headers["authorization"] != authorization {
            let document = state.withLock { $0.authenticationDocument } ?? Data()
            var headers = ["WWW-Authenticate: Basic realm=\"test\"", "Content-Length: \(document.count)"]
            if !document.isEmpty { headers.append("Content-Type: application/opds-authentication+json") }
            send(connection, head: "HTTP/1.1 401 Unauthorized", headers: headers)
            if !document.isEmpty { sendBody(connection, document, path: request.path, fault: nil, throttle: nil) }
            return
        }

        if let redirect {
            send(connection, head: "HTTP/1.1 302 Found", headers: ["Location: \(redirect)", "Content-Length: 0"])
            return
        }
        if case .status(let code, let retryAfter)? = fault {
            var headers = ["Content-Length: 0"]
            if let retryAfter { headers.append("Retry-After: \(retryAfter)") }
            send(connection, head: "HTTP/1.1 \(code) Injected", headers: headers)
            return
        }
        if fault == .htmlPage {
            let page = Data("<!DOCTYPE html><html><body>Please log in</body></html>".utf8)
            send(connection, head: "HTTP/1.1 200 OK", headers: ["Content-Type: text/html", "Content-Length: \(page.count)"])
            sendBody(connection, page, path: request.path, fault: nil, throttle: nil)
            return
        }
        guard let resource else {
            send(connection, head: "HTTP/1.1 404 Not Found", headers: ["Content-Length: 0"])
            return
        }

        var validators: [String] = []
        if let etag = resource.etag { validators.append("ETag: \(etag)") }
        if let lastModified = resource.lastModified { validators.append("Last-Modified: \(lastModified)") }
        let notModified: Bool
        if let match = request.headers["if-none-match"] {
            notModified = match == resource.etag
        } else if let since = request.headers["if-modified-since"] {
            notModified = since == resource.lastModified
        } else {
            notModified = false
        }
        if notModified {
            send(connection, head: "HTTP/1.1 304 Not Modified", headers: validators + resource.extraHeaders)
            return
        }

        let size = resource.body.count
        var start = 0
        var partial = false
        if let range = request.headers["range"], fault != .ignoreRange, let first = Self.rangeStart(range) {
            let ifRange = request.headers["if-range"]
            let validatorMatches = ifRange == nil || ifRange == resource.etag || ifRange == resource.lastModified
            if validatorMatches {
                if first >= size {
                    send(connection, head: "HTTP/1.1 416 Range Not Satisfiable",
                         headers: validators + ["Content-Range: bytes */\(size)", "Content-Length: 0"])
                    return
                }
                start = first
                partial = true
            }
        }
        if partial, case .wrongRange(let wrongStart)? = fault {
            start = min(wrongStart, size - 1)
        }
        let body = start == 0 ? resource.body : resource.body.subdata(in: start..<size)
        var headers = validators + ["Content-Type: \(resource.contentType)", "Accept-Ranges: bytes"] + resource.extraHeaders
        switch fault {
        case .noContentLength?, .extraBytes?:
            break
        default:
            headers.append("Content-Length: \(body.count)")
        }
        if partial {
            headers.append("Content-Range: bytes \(start)-\(size - 1)/\(size)")
            send(connection, head: "HTTP/1.1 206 Partial Content", headers: headers)
        } else {
            send(connection, head: "HTTP/1.1 200 OK", headers: headers)
        }
        var payload = body
        if case .extraBytes(let extra)? = fault { payload.append(Data(repeating: 0x41, count: extra)) }
        sendBody(connection, payload, path: request.path, fault: fault, throttle: resource.throttle)
    }

    static func rangeStart(_ header: String) -> Int? {
        guard header.hasPrefix("bytes=") else { return nil }
        let spec = header.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int(spec[..<dash])
    }

    func send(_ connection: Int32, head: String, headers: [String]) {
        let text = ([head] + headers + ["Connection: close", "", ""]).joined(separator: "\r\n")
        _ = writeAll(connection, Data(text.utf8))
    }

    func sendBody(_ connection: Int32, _ body: Data, path: String, fault: Fault?, throttle: Int?) {
        var limit = body.count
        switch fault {
        case .cutAfter(let count)?: limit = min(count, body.count)
        case .stallAfter(let count)?: limit = min(count, body.count)
        default: break
        }
        let folder = "/" + (path.split(separator: "/").first.map(String.init) ?? "")
        state.withLock { state in
            state.activeTransfers += 1
            state.maximumActiveTransfers = max(state.maximumActiveTransfers, state.activeTransfers)
            state.activeByFolder[folder, default: 0] += 1
            state.maximumByFolder[folder] = max(state.maximumByFolder[folder] ?? 0, state.activeByFolder[folder]!)
        }
        // The count ends just before the last chunk is written: the client cannot finish, and so
        // cannot start its next transfer, before that write, so the count never runs ahead of
        // what the client really has open. (Ending it after the write, or after the client's
        // hang-up, let a fast client's next request be counted before this one was let go.)
        var counted = true
        func endCount() {
            guard counted else { return }
            counted = false
            state.withLock { state in
                state.activeTransfers -= 1
                state.activeByFolder[folder, default: 1] -= 1
                // Every answer closes its connection: once its last byte is on its way, the
                // client's next transfer may open one of its own (so it is counted the same way).
                state.countedConnections.remove(connection)
            }
            signalChange()
        }
        defer { endCount() }
        let chunkSize = throttle.map { max(1024, min(64 * 1024, $0 / 20)) } ?? 256 * 1024
        var offset = 0
        let started = Date()
        while offset < limit {
            let end = min(limit, offset + chunkSize)
            if end == body.count { endCount() }
            guard writeAll(connection, body.subdata(in: offset..<end)) else { return }
            state.withLock { $0.bodyBytesSent[path, default: 0] += end - offset }
            offset = end
            signalChange()
            if let throttle, offset < limit {
                let due = started.addingTimeInterval(Double(offset) / Double(throttle))
                let wait = due.timeIntervalSinceNow
                if wait > 0 { usleep(UInt32(min(wait, 1) * 1_000_000)) }
            }
            if state.withLock({ $0.stopped }) { return }
        }
        // Wait for the client to hang up (or, for a stall, to give up) before closing.
        switch fault {
        case .cutAfter?, .noContentLength?, .extraBytes?:
            return  // the close is what ends (or cuts) the body
        default:
            break
        }
        var byte: UInt8 = 0
        _ = recv(connection, &byte, 1, 0)
    }

    func writeAll(_ connection: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.send(connection, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
