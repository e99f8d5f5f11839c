// The simulator's disk (docs/simulation.md, "The simulated disk"): a SQLite VFS that keeps each
// file in memory, makes a write durable only at its file's sync, and on a power cut drops
// every write not yet synced and may tear the last one. Registered under its own name, never
// as the default: only a database opened through it (a `file:` URI with `vfs=hyzer-simdisk`)
// lives there. Every choice is made by the caller (the simulator's seeded random); the disk
// reads no clock and draws no random number.
#ifndef HYZER_SIMULATED_DISK_H
#define HYZER_SIMULATED_DISK_H

#include <stdint.h>

/// The VFS's name, as a URI's `vfs=` parameter takes it.
#define HYZER_SIMDISK_VFS_NAME "hyzer-simdisk"

/// Registers the VFS with SQLite (once; later calls do nothing). Returns an SQLite result code.
int hyzer_simdisk_register(void);

/// What a disk does at a sync.
typedef enum {
    /// The file's writes become durable.
    HyzerDiskSyncHonoured = 1,
    /// A planted fault: a sync of a `-wal` file is acknowledged and makes nothing durable (a
    /// disk that lies about its cache for the files it writes most).
    HyzerDiskSyncIgnoredForWAL = 2,
} HyzerDiskSyncRule;

/// Makes the files under `directory` one device's disk: counted, cut and failed together.
void hyzer_simdisk_attach(const char *directory, HyzerDiskSyncRule sync_rule);

/// Forgets the disk of `directory` and every file under it.
void hyzer_simdisk_detach(const char *directory);

/// What a disk did since it was attached.
typedef struct {
    int64_t writes;
    int64_t syncs;
    int64_t reads;
    /// Writes a power cut dropped because no sync had made them durable.
    int64_t droppedWrites;
    /// Power cuts that kept only a prefix of the last write.
    int64_t tornWrites;
    /// Reads that failed with an I/O error.
    int64_t failedReads;
    /// Power cuts.
    int64_t powerCuts;
} HyzerDiskCounters;

HyzerDiskCounters hyzer_simdisk_counters(const char *directory);

/// Cuts the power of the disk of `directory` now: every file goes back to what its last sync
/// made durable, except that when `tear_keep_permille` is 0...999 the last unsynced write keeps
/// that share of its bytes (rounded down to 512-byte sectors). Every connection open on the
/// files is dead from then on: its reads, writes, syncs and locks fail, and nothing it does
/// reaches the files a new connection opens.
void hyzer_simdisk_cut_power(const char *directory, int tear_keep_permille);

/// The power goes at the `operation`-th write or sync (1 = the next) of the disk: that write
/// is torn as `tear_keep_permille` says and fails, that sync does not happen and fails.
void hyzer_simdisk_arm_power_cut(const char *directory, int64_t operation, int tear_keep_permille);

/// Disarms the armed power cut; returns 1 when it had already happened.
int hyzer_simdisk_disarm_power_cut(const char *directory);

/// The `read`-th read (1 = the next) of the disk fails with an I/O error.
void hyzer_simdisk_arm_read_failure(const char *directory, int64_t read);

/// Disarms the armed read failure; returns 1 when it had already happened.
int hyzer_simdisk_disarm_read_failure(const char *directory);

/// Copies every file under `from` to the same name under `to` (replacing what was there), as
/// a backup tool would copy a closed store: the copies are durable.
void hyzer_simdisk_copy(const char *from, const char *to);

/// Deletes every file under `directory`.
void hyzer_simdisk_remove(const char *directory);

/// Whether a file named `path` exists with at least one byte (as SQLite's own `xAccess` says).
int hyzer_simdisk_exists(const char *path);

#endif
