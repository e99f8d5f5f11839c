// Declarations only: the driver is in libFuzzer, which `-sanitize=fuzzer` links.
