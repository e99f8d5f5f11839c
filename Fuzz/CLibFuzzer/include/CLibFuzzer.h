#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, linked by `-sanitize=fuzzer`): parses the libFuzzer flags in
/// argv and runs `callback` on each input. SwiftPM gives every executable its own `main`, so
/// the fuzz targets call this instead of libFuzzer's `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
