import Foundation

/// A terminal for tests, shipped with the shelf: plays a script of events, each once the screen
/// shows what it waits for, keeps every frame drawn, and names the step whose screen never came.
public final class ScriptedTerminal: Terminal {
    public struct Step: Sendable {
        public var waitFor: String?
        /// Waits until the screen satisfies this, as well as showing `waitFor`.
        public var until: (@Sendable (String) -> Bool)?
        public var event: InputEvent

        public init(waitFor: String? = nil, until: (@Sendable (String) -> Bool)? = nil, event: InputEvent) {
            self.waitFor = waitFor
            self.until = until
            self.event = event
        }
    }

    public var width: Int
    public var height: Int
    public let colorSupport = ColorSupport.none
    private var steps: [Step]
    public private(set) var frames: [Buffer] = []
    /// When each frame was drawn, in nanoseconds of uptime.
    public private(set) var frameTimes: [UInt64] = []
    private let deadline: Date
    private let patience: TimeInterval
    /// How many frames there were when the last scripted event was handed out.
    private var framesAtLastEvent = Int.max
    /// Indices of the frames drawn right after an event was handed out: a key is drawn at once,
    /// so only the other frames are held to the frame interval.
    public private(set) var framesAfterEvents: Set<Int> = []
    /// The step whose screen never came, named (its text, its place in the script): the run
    /// was given up at the deadline there. Nil when every step ran.
    public private(set) var unmetStep: String?
    private var stepNumber = 0

    /// `patience`: how long a step waits for its screen before the run is given up.
    public init(width: Int, height: Int, steps: [Step], patience: TimeInterval = 20) {
        self.patience = patience
        deadline = Date().addingTimeInterval(patience)
        self.width = width
        self.height = height
        self.steps = steps
    }

    /// Steps not handed out: the shelf quit before it asked for them.
    public var remainingSteps: Int { steps.count }

    public var screen: String { frames.last?.lines().joined(separator: "\n") ?? "" }

    public func draw(_ buffer: Buffer) {
        frames.append(buffer)
        frameTimes.append(DispatchTime.now().uptimeNanoseconds)
    }

    public func nextEvent(timeout: Double?, wakeDescriptor: Int32) -> InputEvent? {
        guard let step = steps.first else {
            // Quit once the last event's effect has been drawn.
            if frames.count > framesAtLastEvent || Date() > deadline { return .key(.character("q")) }
            var descriptor = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(timeout ?? 0.2, 0.2) * 1000))
            return nil
        }
        let shown = step.waitFor.map(screen.contains) ?? true
        let met = shown && step.until?(screen) != false
        if !met, Date() >= deadline {
            // Given up: the step is named, and the shelf is told to quit.
            let what = step.waitFor.map { "“\($0)”" } ?? "the screen its condition asks for"
            unmetStep = "step \(stepNumber + 1): the screen never showed \(what) within \(Int(patience)) s; it showed:\n\(screen)"
            steps.removeAll()
            framesAtLastEvent = -1
            return .key(.character("q"))
        }
        if !met {
            // Not there yet: wait for the controller to be woken (a notification) or a frame to be due.
            var descriptor = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(timeout ?? 0.2, 0.2) * 1000))
            return nil
        }
        steps.removeFirst()
        stepNumber += 1
        framesAtLastEvent = frames.count
        framesAfterEvents.insert(frames.count)
        if case .resize(let width, let height) = step.event {
            self.width = width
            self.height = height
        }
        return step.event
    }

    public func suspend() {}
    public func resume() {}
    public func end() {}
}
