import Testing

/// The suites over loopback share the event loops and the CPU, and the siege and the floods
/// load them on purpose: one after another, no test's timeouts depend on another's load.
@Suite(.serialized) struct LiveSyncTests {}
