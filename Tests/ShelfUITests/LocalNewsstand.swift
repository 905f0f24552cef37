import Foundation
import NewsstandKit

/// A newsstand of one publication whose catalog is a file in a fresh folder: the shelf's tests
/// run on it without a server.
enum LocalNewsstand {
    /// The newsstand, its one store (named `mag`, titled "Mag"), and the folder to remove.
    static func make(entries: [[String: Any]]) throws -> (Newsstand, Store, String) {
        let folder = NSTemporaryDirectory() + "newsstand-shelf-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let data = try PropertyListSerialization.data(fromPropertyList: ["Title": "Mag", "Issues": entries], format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: folder + "/catalog.plist"))
        var configuration = Newsstand.Configuration(
            directories: Directories(data: folder + "/data", cache: folder + "/cache", state: folder + "/state"))
        configuration.notificationCenter = NotificationCenter()
        let newsstand = try Newsstand(
            configuration: configuration, subscriptions: [Subscription(name: "mag", url: URL(fileURLWithPath: folder + "/catalog.plist"))])
        return (newsstand, newsstand.stores[0], folder)
    }
}
