// The simulator's disk: see include/CSimulatedDisk.h and docs/simulation.md ("The simulated disk").
//
// A file is an inode: its current bytes (what reads see, as an OS page cache would show them)
// and its durable bytes (what the last sync made durable). A power cut gives every file of the
// device a new inode holding its durable bytes (plus, when torn, a prefix of the last write);
// the old inode is dead, so connections still open on it fail and never touch the new one.
// WAL's shared memory and the file locks live in the inode, faithfully, for the connections of
// one process (GRDB's pool: a writer and its readers). One mutex guards everything: GRDB runs
// readers on other threads.
#include "CSimulatedDisk.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK = 4096, SECTOR = 512, SHM_LOCKS = SQLITE_SHM_NLOCK };

typedef struct Disk {
    char *prefix;  // the directory with a trailing slash
    HyzerDiskSyncRule syncRule;
    HyzerDiskCounters counters;
    int64_t cutAt;  // the operation that cuts the power; 0: none armed
    int cutTearPermille;
    int cutFired;
    int64_t failAt;  // the read that fails; 0: none armed
    int failFired;
    struct Inode *lastWritten;  // the inode of the last unsynced write, and where it went
    int64_t lastOffset;
    int lastAmount;
    struct Disk *next;
} Disk;

typedef struct Shm {
    int regionCount;
    int regionSize;
    void **regions;
    int mapped;                            // handles that mapped it
    int shared[SHM_LOCKS];                 // shared holders of each lock
    struct SimulatedFile *exclusive[SHM_LOCKS];  // the exclusive holder of each lock
} Shm;

typedef struct Inode {
    char *path;  // NULL once deleted, or for a temporary file
    Disk *disk;
    unsigned char *data;
    int64_t size, capacity;
    unsigned char *durable;
    int64_t durableSize, durableCapacity;
    unsigned char *dirtyChunk;  // one flag per chunk of `data` written since the last sync
    int64_t dirtyCapacity;
    int64_t *dirtyList;
    int64_t dirtyCount, dirtyListCapacity;
    int truncated;  // the size changed since the last sync
    int64_t unsyncedWrites;
    int dead;
    int handles;
    // File locks: SQLite's levels, between the handles of this inode.
    int sharedLocks;
    struct SimulatedFile *reserved;  // the holder of RESERVED, PENDING or EXCLUSIVE
    int pending;
    int exclusive;
    Shm *shm;
    struct Inode *next;  // in the table of named files
} Inode;

typedef struct SimulatedFile {
    sqlite3_file base;
    Inode *inode;
    int lock;
    int shmMapped;
    unsigned shmShared, shmExclusive;  // bit i: this handle holds lock i
} SimulatedFile;

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static Disk *disks;
static Inode *files;

// MARK: - Memory

static int grow(unsigned char **bytes, int64_t *capacity, int64_t needed) {
    if (needed <= *capacity) return 1;
    int64_t next = *capacity > 0 ? *capacity : CHUNK;
    while (next < needed) {
        if (next > INT64_MAX / 2) return 0;
        next *= 2;
    }
    unsigned char *grown = realloc(*bytes, (size_t)next);
    if (!grown) return 0;
    memset(grown + *capacity, 0, (size_t)(next - *capacity));
    *bytes = grown;
    *capacity = next;
    return 1;
}

static char *copyString(const char *text) {
    size_t length = strlen(text);
    char *copy = malloc(length + 1);
    if (copy) memcpy(copy, text, length + 1);
    return copy;
}

static int startsWith(const char *text, const char *prefix) { return strncmp(text, prefix, strlen(prefix)) == 0; }

static int endsWith(const char *text, const char *suffix) {
    size_t length = text ? strlen(text) : 0, suffixLength = strlen(suffix);
    return length >= suffixLength && strcmp(text + length - suffixLength, suffix) == 0;
}

static char *prefixOf(const char *directory) {
    size_t length = strlen(directory);
    int slash = length > 0 && directory[length - 1] == '/';
    char *prefix = malloc(length + 2);
    if (!prefix) return NULL;
    memcpy(prefix, directory, length);
    if (!slash) prefix[length++] = '/';
    prefix[length] = 0;
    return prefix;
}

static Disk *diskOf(const char *directory) {
    char *prefix = prefixOf(directory);
    if (!prefix) return NULL;
    Disk *found = NULL;
    for (Disk *disk = disks; disk; disk = disk->next) {
        if (strcmp(disk->prefix, prefix) == 0) found = disk;
    }
    free(prefix);
    return found;
}

static Disk *diskHolding(const char *path) {
    Disk *best = NULL;
    for (Disk *disk = disks; disk; disk = disk->next) {
        if (startsWith(path, disk->prefix) && (!best || strlen(disk->prefix) > strlen(best->prefix))) best = disk;
    }
    return best;
}

static Inode *newInode(const char *path) {
    Inode *inode = calloc(1, sizeof(Inode));
    if (!inode) return NULL;
    if (path) {
        inode->path = copyString(path);
        if (!inode->path) {
            free(inode);
            return NULL;
        }
        inode->disk = diskHolding(path);
        inode->next = files;
        files = inode;
    }
    return inode;
}

static void freeShm(Shm *shm) {
    if (!shm) return;
    for (int i = 0; i < shm->regionCount; i++) free(shm->regions[i]);
    free(shm->regions);
    free(shm);
}

static void freeInode(Inode *inode) {
    free(inode->path);
    free(inode->data);
    free(inode->durable);
    free(inode->dirtyChunk);
    free(inode->dirtyList);
    freeShm(inode->shm);
    free(inode);
}

/// Takes `inode` out of the table of named files (a deletion, or a power cut replacing it).
static void detachInode(Inode *inode) {
    for (Inode **link = &files; *link; link = &(*link)->next) {
        if (*link == inode) {
            *link = inode->next;
            break;
        }
    }
    inode->next = NULL;
    for (Disk *disk = disks; disk; disk = disk->next) {
        if (disk->lastWritten == inode) disk->lastWritten = NULL;
    }
}

/// Frees an unlinked inode once no handle holds it.
static void release(Inode *inode) {
    if (inode->handles == 0 && (inode->path == NULL || inode->dead)) freeInode(inode);
}

static Inode *named(const char *path) {
    for (Inode *inode = files; inode; inode = inode->next) {
        if (strcmp(inode->path, path) == 0) return inode;
    }
    return NULL;
}

/// Records that chunk `index` of the current bytes differs from the durable bytes.
static int markDirty(Inode *inode, int64_t index) {
    if (!grow(&inode->dirtyChunk, &inode->dirtyCapacity, index + 1)) return 0;
    if (inode->dirtyChunk[index]) return 1;
    if (inode->dirtyCount == inode->dirtyListCapacity) {
        int64_t next = inode->dirtyListCapacity ? inode->dirtyListCapacity * 2 : 64;
        int64_t *list = realloc(inode->dirtyList, (size_t)next * sizeof(int64_t));
        if (!list) return 0;
        inode->dirtyList = list;
        inode->dirtyListCapacity = next;
    }
    inode->dirtyChunk[index] = 1;
    inode->dirtyList[inode->dirtyCount++] = index;
    return 1;
}

/// The current bytes become durable: only the chunks written since the last sync are copied.
static int makeDurable(Inode *inode) {
    if (!grow(&inode->durable, &inode->durableCapacity, inode->size)) return 0;
    for (int64_t i = 0; i < inode->dirtyCount; i++) {
        int64_t index = inode->dirtyList[i];
        int64_t start = index * CHUNK;
        if (start < inode->size) {
            int64_t end = start + CHUNK < inode->size ? start + CHUNK : inode->size;
            memcpy(inode->durable + start, inode->data + start, (size_t)(end - start));
        }
        inode->dirtyChunk[index] = 0;
    }
    inode->dirtyCount = 0;
    if (inode->size < inode->durableSize) memset(inode->durable + inode->size, 0, (size_t)(inode->durableSize - inode->size));
    inode->durableSize = inode->size;
    inode->truncated = 0;
    inode->unsyncedWrites = 0;
    return 1;
}

// MARK: - Power

/// Gives the files of `disk` new inodes holding their durable bytes; the last unsynced write
/// keeps `keepPermille` of its bytes (whole sectors) when 0...999, none when negative.
static void cutPower(Disk *disk, int keepPermille) {
    disk->counters.powerCuts++;
    Inode *torn = disk->lastWritten;
    int64_t tornOffset = disk->lastOffset, tornAmount = disk->lastAmount;
    Inode *victims = NULL;
    for (Inode **link = &files; *link;) {
        Inode *inode = *link;
        if (inode->disk == disk) {
            *link = inode->next;
            inode->next = victims;
            victims = inode;
        } else {
            link = &inode->next;
        }
    }
    disk->lastWritten = NULL;
    while (victims) {
        Inode *old = victims;
        victims = old->next;
        old->next = NULL;
        disk->counters.droppedWrites += old->unsyncedWrites;
        Inode *fresh = newInode(old->path);
        if (fresh && grow(&fresh->data, &fresh->capacity, old->durableSize)) {
            memcpy(fresh->data, old->durable, (size_t)old->durableSize);
            fresh->size = old->durableSize;
            if (old == torn && keepPermille >= 0 && keepPermille < 1000) {
                int64_t keep = tornAmount * keepPermille / 1000 / SECTOR * SECTOR;
                if (tornOffset + keep > old->size) keep = old->size > tornOffset ? old->size - tornOffset : 0;
                if (keep > 0 && grow(&fresh->data, &fresh->capacity, tornOffset + keep)) {
                    memcpy(fresh->data + tornOffset, old->data + tornOffset, (size_t)keep);
                    if (tornOffset + keep > fresh->size) fresh->size = tornOffset + keep;
                    disk->counters.tornWrites++;
                }
            }
            // What survived the cut is on the disk, whole.
            for (int64_t index = 0; index * CHUNK < fresh->size; index++) markDirty(fresh, index);
            makeDurable(fresh);
        }
        old->dead = 1;
        release(old);
    }
}

/// Counts one write or sync of `inode`'s disk; returns 1 when the power goes at it.
static int powerGoesAt(Inode *inode) {
    Disk *disk = inode->disk;
    if (!disk || disk->cutAt == 0) return 0;
    disk->cutAt--;
    if (disk->cutAt > 0) return 0;
    disk->cutFired = 1;
    return 1;
}

// MARK: - File methods

static int fileClose(sqlite3_file *file) {
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    Inode *inode = handle->inode;
    if (inode) {
        if (handle->lock > SQLITE_LOCK_NONE && !inode->dead) {
            if (inode->sharedLocks > 0) inode->sharedLocks--;
            if (inode->reserved == handle) {
                inode->reserved = NULL;
                inode->pending = 0;
                inode->exclusive = 0;
            }
        }
        inode->handles--;
        handle->inode = NULL;
        release(inode);
    }
    pthread_mutex_unlock(&mutex);
    return SQLITE_OK;
}

static int fileRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    Inode *inode = handle->inode;
    if (inode->dead) {
        pthread_mutex_unlock(&mutex);
        return SQLITE_IOERR_READ;
    }
    Disk *disk = inode->disk;
    if (disk) {
        disk->counters.reads++;
        if (disk->failAt > 0 && --disk->failAt == 0) {
            disk->failFired = 1;
            disk->counters.failedReads++;
            pthread_mutex_unlock(&mutex);
            return SQLITE_IOERR_READ;
        }
    }
    int64_t available = offset < inode->size ? inode->size - offset : 0;
    int64_t copied = available < amount ? available : amount;
    if (copied > 0) memcpy(buffer, inode->data + offset, (size_t)copied);
    pthread_mutex_unlock(&mutex);
    if (copied < amount) {
        memset((unsigned char *)buffer + copied, 0, (size_t)(amount - copied));
        return SQLITE_IOERR_SHORT_READ;
    }
    return SQLITE_OK;
}

static int fileWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    Inode *inode = handle->inode;
    int rc = SQLITE_OK;
    if (inode->dead || offset < 0 || amount < 0 || offset > INT64_MAX - amount) {
        rc = SQLITE_IOERR_WRITE;
    } else if (!grow(&inode->data, &inode->capacity, offset + amount)) {
        rc = SQLITE_IOERR_NOMEM;
    } else {
        memcpy(inode->data + offset, buffer, (size_t)amount);
        if (offset + amount > inode->size) inode->size = offset + amount;
        for (int64_t index = offset / CHUNK; amount > 0 && index <= (offset + amount - 1) / CHUNK; index++) {
            if (!markDirty(inode, index)) rc = SQLITE_IOERR_NOMEM;
        }
        inode->unsyncedWrites++;
        if (inode->disk) {
            inode->disk->counters.writes++;
            inode->disk->lastWritten = inode;
            inode->disk->lastOffset = offset;
            inode->disk->lastAmount = amount;
        }
        if (powerGoesAt(inode)) {
            cutPower(inode->disk, inode->disk->cutTearPermille);
            rc = SQLITE_IOERR_WRITE;
        }
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int fileTruncate(sqlite3_file *file, sqlite3_int64 size) {
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    Inode *inode = handle->inode;
    int rc = SQLITE_OK;
    if (inode->dead || size < 0) {
        rc = SQLITE_IOERR_TRUNCATE;
    } else if (!grow(&inode->data, &inode->capacity, size)) {
        rc = SQLITE_IOERR_NOMEM;
    } else {
        if (size < inode->size) memset(inode->data + size, 0, (size_t)(inode->size - size));
        inode->size = size;
        inode->truncated = 1;
        inode->unsyncedWrites++;
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int fileSync(sqlite3_file *file, int flags) {
    (void)flags;
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    Inode *inode = handle->inode;
    int rc = SQLITE_OK;
    if (inode->dead) {
        rc = SQLITE_IOERR_FSYNC;
    } else if (powerGoesAt(inode)) {
        cutPower(inode->disk, inode->disk->cutTearPermille);
        rc = SQLITE_IOERR_FSYNC;
    } else {
        if (inode->disk) inode->disk->counters.syncs++;
        if (!inode->disk || inode->disk->syncRule == HyzerDiskSyncHonoured || !endsWith(inode->path, "-wal")) {
            if (!makeDurable(inode)) rc = SQLITE_IOERR_NOMEM;
            if (inode->disk && inode->disk->lastWritten == inode) inode->disk->lastWritten = NULL;
        }
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int fileSize(sqlite3_file *file, sqlite3_int64 *size) {
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    int rc = handle->inode->dead ? SQLITE_IOERR_FSTAT : SQLITE_OK;
    *size = handle->inode->size;
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int fileLock(sqlite3_file *file, int level) {
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    Inode *inode = handle->inode;
    int rc = SQLITE_OK;
    if (inode->dead) {
        rc = SQLITE_IOERR_LOCK;
    } else if (handle->lock >= level) {
        rc = SQLITE_OK;
    } else if (level == SQLITE_LOCK_SHARED) {
        if (inode->pending || inode->exclusive) {
            rc = SQLITE_BUSY;
        } else {
            inode->sharedLocks++;
            handle->lock = SQLITE_LOCK_SHARED;
        }
    } else if (level == SQLITE_LOCK_RESERVED) {
        if (inode->reserved && inode->reserved != handle) {
            rc = SQLITE_BUSY;
        } else {
            inode->reserved = handle;
            handle->lock = SQLITE_LOCK_RESERVED;
        }
    } else {  // PENDING on the way to EXCLUSIVE
        if (inode->reserved && inode->reserved != handle) {
            rc = SQLITE_BUSY;
        } else {
            inode->reserved = handle;
            inode->pending = 1;
            if (inode->sharedLocks > (handle->lock >= SQLITE_LOCK_SHARED ? 1 : 0)) {
                handle->lock = SQLITE_LOCK_PENDING;
                rc = SQLITE_BUSY;
            } else {
                inode->exclusive = 1;
                handle->lock = SQLITE_LOCK_EXCLUSIVE;
            }
        }
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int fileUnlock(sqlite3_file *file, int level) {
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    Inode *inode = handle->inode;
    if (handle->lock > level) {
        if (handle->lock >= SQLITE_LOCK_RESERVED && inode->reserved == handle) {
            inode->reserved = NULL;
            inode->pending = 0;
            inode->exclusive = 0;
        }
        if (level == SQLITE_LOCK_NONE && handle->lock >= SQLITE_LOCK_SHARED && inode->sharedLocks > 0) inode->sharedLocks--;
        handle->lock = level;
    }
    pthread_mutex_unlock(&mutex);
    return SQLITE_OK;
}

static int fileCheckReservedLock(sqlite3_file *file, int *reserved) {
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    *reserved = handle->inode->reserved != NULL;
    int rc = handle->inode->dead ? SQLITE_IOERR_CHECKRESERVEDLOCK : SQLITE_OK;
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int fileControl(sqlite3_file *file, int operation, void *argument) {
    (void)file;
    (void)operation;
    (void)argument;
    return SQLITE_NOTFOUND;
}

static int fileSectorSize(sqlite3_file *file) {
    (void)file;
    return CHUNK;
}

/// As Linux's unix VFS says by default: a write never damages bytes outside its range.
static int fileDeviceCharacteristics(sqlite3_file *file) {
    (void)file;
    return SQLITE_IOCAP_POWERSAFE_OVERWRITE;
}

static int fileShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **mapped) {
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    Inode *inode = handle->inode;
    int rc = SQLITE_OK;
    *mapped = NULL;
    if (inode->dead) {
        rc = SQLITE_IOERR_SHMMAP;
        goto done;
    }
    if (!inode->shm) {
        inode->shm = calloc(1, sizeof(Shm));
        if (!inode->shm) {
            rc = SQLITE_IOERR_NOMEM;
            goto done;
        }
        inode->shm->regionSize = size;
    }
    Shm *shm = inode->shm;
    if (!handle->shmMapped) {
        handle->shmMapped = 1;
        shm->mapped++;
    }
    if (region >= shm->regionCount) {
        if (!extend) goto done;
        void **regions = realloc(shm->regions, (size_t)(region + 1) * sizeof(void *));
        if (!regions) {
            rc = SQLITE_IOERR_NOMEM;
            goto done;
        }
        shm->regions = regions;
        while (shm->regionCount <= region) {
            shm->regions[shm->regionCount] = calloc(1, (size_t)size);
            if (!shm->regions[shm->regionCount]) {
                rc = SQLITE_IOERR_NOMEM;
                goto done;
            }
            shm->regionCount++;
        }
    }
    *mapped = shm->regions[region];
done:
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int fileShmLock(sqlite3_file *file, int offset, int count, int flags) {
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    Inode *inode = handle->inode;
    Shm *shm = inode->shm;
    int rc = SQLITE_OK;
    if (!shm || offset < 0 || count < 1 || offset + count > SHM_LOCKS) {
        rc = SQLITE_IOERR_SHMLOCK;
    } else if (flags & SQLITE_SHM_UNLOCK) {
        for (int i = offset; i < offset + count; i++) {
            unsigned bit = 1u << i;
            if (handle->shmExclusive & bit) {
                shm->exclusive[i] = NULL;
                handle->shmExclusive &= ~bit;
            }
            if (handle->shmShared & bit) {
                shm->shared[i]--;
                handle->shmShared &= ~bit;
            }
        }
    } else if (inode->dead) {
        rc = SQLITE_IOERR_SHMLOCK;
    } else if (flags & SQLITE_SHM_SHARED) {
        for (int i = offset; i < offset + count && rc == SQLITE_OK; i++) {
            if (shm->exclusive[i] && shm->exclusive[i] != handle) rc = SQLITE_BUSY;
        }
        for (int i = offset; i < offset + count && rc == SQLITE_OK; i++) {
            unsigned bit = 1u << i;
            if (!(handle->shmShared & bit)) {
                shm->shared[i]++;
                handle->shmShared |= bit;
            }
        }
    } else {
        for (int i = offset; i < offset + count && rc == SQLITE_OK; i++) {
            int mine = (handle->shmShared >> i) & 1;
            if ((shm->exclusive[i] && shm->exclusive[i] != handle) || shm->shared[i] - mine > 0) rc = SQLITE_BUSY;
        }
        for (int i = offset; i < offset + count && rc == SQLITE_OK; i++) {
            shm->exclusive[i] = handle;
            handle->shmExclusive |= 1u << i;
        }
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

static void fileShmBarrier(sqlite3_file *file) {
    (void)file;
    pthread_mutex_lock(&mutex);
    __sync_synchronize();
    pthread_mutex_unlock(&mutex);
}

/// The last handle to unmap frees the memory: the next connection rebuilds the index from the
/// WAL, as the unix VFS's first connection does.
static int fileShmUnmap(sqlite3_file *file, int deleteFlag) {
    (void)deleteFlag;
    SimulatedFile *handle = (SimulatedFile *)file;
    pthread_mutex_lock(&mutex);
    Inode *inode = handle->inode;
    Shm *shm = inode->shm;
    if (shm && handle->shmMapped) {
        for (int i = 0; i < SHM_LOCKS; i++) {
            if (handle->shmExclusive & (1u << i)) shm->exclusive[i] = NULL;
            if (handle->shmShared & (1u << i)) shm->shared[i]--;
        }
        handle->shmShared = handle->shmExclusive = 0;
        handle->shmMapped = 0;
        if (--shm->mapped == 0) {
            freeShm(shm);
            inode->shm = NULL;
        }
    }
    pthread_mutex_unlock(&mutex);
    return SQLITE_OK;
}

static const sqlite3_io_methods methods = {
    2,
    fileClose,
    fileRead,
    fileWrite,
    fileTruncate,
    fileSync,
    fileSize,
    fileLock,
    fileUnlock,
    fileCheckReservedLock,
    fileControl,
    fileSectorSize,
    fileDeviceCharacteristics,
    fileShmMap,
    fileShmLock,
    fileShmBarrier,
    fileShmUnmap,
    NULL,
    NULL,
};

// MARK: - VFS methods

static int vfsOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    SimulatedFile *handle = (SimulatedFile *)file;
    memset(handle, 0, sizeof(*handle));
    pthread_mutex_lock(&mutex);
    int rc = SQLITE_OK;
    Inode *inode = NULL;
    int temporary = name == NULL || (flags & SQLITE_OPEN_DELETEONCLOSE);
    if (temporary) {
        inode = newInode(NULL);
    } else {
        inode = named(name);
        if (inode && (flags & SQLITE_OPEN_EXCLUSIVE)) {
            rc = SQLITE_CANTOPEN;
            inode = NULL;
        } else if (!inode) {
            inode = (flags & SQLITE_OPEN_CREATE) ? newInode(name) : NULL;
            if (!inode) rc = SQLITE_CANTOPEN;
        }
    }
    if (inode) {
        inode->handles++;
        handle->inode = inode;
        handle->base.pMethods = &methods;
        if (outFlags) *outFlags = flags;
    } else if (rc == SQLITE_OK) {
        rc = SQLITE_IOERR_NOMEM;
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int vfsDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    (void)syncDirectory;
    pthread_mutex_lock(&mutex);
    Inode *inode = named(name);
    int rc = SQLITE_IOERR_DELETE_NOENT;
    if (inode) {
        detachInode(inode);
        free(inode->path);
        inode->path = NULL;
        release(inode);
        rc = SQLITE_OK;
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int vfsAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    (void)flags;
    pthread_mutex_lock(&mutex);
    Inode *inode = named(name);
    *result = inode != NULL && inode->size > 0;
    pthread_mutex_unlock(&mutex);
    return SQLITE_OK;
}

static int vfsFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    size_t length = strlen(name);
    if ((int64_t)length + 1 > size) return SQLITE_CANTOPEN;
    memcpy(out, name, length + 1);
    return SQLITE_OK;
}

/// SQLite draws its own random numbers from the default VFS; this one is never asked, and
/// answers without a random source.
static int vfsRandomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    memset(out, 0, (size_t)size);
    return size;
}

/// A busy wait between connections of one process: the simulator's store is never busy for
/// long, and sleeping reads no clock.
static int vfsSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    sqlite3_vfs *system = sqlite3_vfs_find("unix");
    return system ? system->xSleep(system, microseconds) : microseconds;
}

/// No clock: the stores never ask SQLite for the time (their clocks are the devices' own).
static int vfsCurrentTime(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    *now = 2440587.5;
    return SQLITE_OK;
}

static int vfsCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    *now = (sqlite3_int64)210866760000000;  // 1970-01-01 as a Julian day in milliseconds
    return SQLITE_OK;
}

static int vfsGetLastError(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    if (size > 0) out[0] = 0;
    return 0;
}

static sqlite3_vfs vfs = {
    2,
    sizeof(SimulatedFile),
    1024,
    NULL,
    HYZER_SIMDISK_VFS_NAME,
    NULL,
    vfsOpen,
    vfsDelete,
    vfsAccess,
    vfsFullPathname,
    NULL,
    NULL,
    NULL,
    NULL,
    vfsRandomness,
    vfsSleep,
    vfsCurrentTime,
    vfsGetLastError,
    vfsCurrentTimeInt64,
    NULL,
    NULL,
    NULL,
};

static pthread_once_t registration = PTHREAD_ONCE_INIT;
static int registered = SQLITE_ERROR;

static void registerOnce(void) { registered = sqlite3_vfs_register(&vfs, 0); }

int hyzer_simdisk_register(void) {
    pthread_once(&registration, registerOnce);
    return registered;
}

// MARK: - The simulator's controls

void hyzer_simdisk_attach(const char *directory, HyzerDiskSyncRule syncRule) {
    pthread_mutex_lock(&mutex);
    Disk *disk = diskOf(directory);
    if (!disk) {
        disk = calloc(1, sizeof(Disk));
        if (disk) disk->prefix = prefixOf(directory);
        if (disk && disk->prefix) {
            disk->next = disks;
            disks = disk;
        } else if (disk) {
            free(disk);
            disk = NULL;
        }
    }
    if (disk) {
        disk->syncRule = syncRule;
        for (Inode *inode = files; inode; inode = inode->next) {
            if (startsWith(inode->path, disk->prefix)) inode->disk = diskHolding(inode->path);
        }
    }
    pthread_mutex_unlock(&mutex);
}

static void removeUnder(const char *prefix) {
    for (Inode **link = &files; *link;) {
        Inode *inode = *link;
        if (startsWith(inode->path, prefix)) {
            detachInode(inode);
            free(inode->path);
            inode->path = NULL;
            release(inode);
        } else {
            link = &inode->next;
        }
    }
}

void hyzer_simdisk_detach(const char *directory) {
    pthread_mutex_lock(&mutex);
    char *prefix = prefixOf(directory);
    if (prefix) {
        removeUnder(prefix);
        for (Disk **link = &disks; *link;) {
            Disk *disk = *link;
            if (startsWith(disk->prefix, prefix)) {
                *link = disk->next;
                for (Inode *inode = files; inode; inode = inode->next) {
                    if (inode->disk == disk) inode->disk = diskHolding(inode->path);
                }
                free(disk->prefix);
                free(disk);
            } else {
                link = &disk->next;
            }
        }
        free(prefix);
    }
    pthread_mutex_unlock(&mutex);
}

HyzerDiskCounters hyzer_simdisk_counters(const char *directory) {
    HyzerDiskCounters counters = {0};
    pthread_mutex_lock(&mutex);
    Disk *disk = diskOf(directory);
    if (disk) counters = disk->counters;
    pthread_mutex_unlock(&mutex);
    return counters;
}

void hyzer_simdisk_cut_power(const char *directory, int tearKeepPermille) {
    pthread_mutex_lock(&mutex);
    Disk *disk = diskOf(directory);
    if (disk) cutPower(disk, tearKeepPermille);
    pthread_mutex_unlock(&mutex);
}

void hyzer_simdisk_arm_power_cut(const char *directory, int64_t operation, int tearKeepPermille) {
    pthread_mutex_lock(&mutex);
    Disk *disk = diskOf(directory);
    if (disk) {
        disk->cutAt = operation > 0 ? operation : 1;
        disk->cutTearPermille = tearKeepPermille;
        disk->cutFired = 0;
    }
    pthread_mutex_unlock(&mutex);
}

int hyzer_simdisk_disarm_power_cut(const char *directory) {
    pthread_mutex_lock(&mutex);
    Disk *disk = diskOf(directory);
    int fired = 0;
    if (disk) {
        fired = disk->cutFired;
        disk->cutAt = 0;
        disk->cutFired = 0;
    }
    pthread_mutex_unlock(&mutex);
    return fired;
}

void hyzer_simdisk_arm_read_failure(const char *directory, int64_t read) {
    pthread_mutex_lock(&mutex);
    Disk *disk = diskOf(directory);
    if (disk) {
        disk->failAt = read > 0 ? read : 1;
        disk->failFired = 0;
    }
    pthread_mutex_unlock(&mutex);
}

int hyzer_simdisk_disarm_read_failure(const char *directory) {
    pthread_mutex_lock(&mutex);
    Disk *disk = diskOf(directory);
    int fired = 0;
    if (disk) {
        fired = disk->failFired;
        disk->failAt = 0;
        disk->failFired = 0;
    }
    pthread_mutex_unlock(&mutex);
    return fired;
}

void hyzer_simdisk_copy(const char *from, const char *to) {
    pthread_mutex_lock(&mutex);
    char *source = prefixOf(from), *target = prefixOf(to);
    if (source && target) {
        removeUnder(target);
        size_t sourceLength = strlen(source), targetLength = strlen(target);
        // New inodes go to the head of the table: walk a snapshot of the sources first.
        int64_t count = 0;
        for (Inode *inode = files; inode; inode = inode->next) count += startsWith(inode->path, source);
        Inode **sources = count ? malloc((size_t)count * sizeof(Inode *)) : NULL;
        int64_t found = 0;
        for (Inode *inode = files; inode && sources; inode = inode->next) {
            if (startsWith(inode->path, source)) sources[found++] = inode;
        }
        for (int64_t i = 0; i < found; i++) {
            Inode *original = sources[i];
            size_t restLength = strlen(original->path) - sourceLength;
            char *path = malloc(targetLength + restLength + 1);
            if (!path) continue;
            memcpy(path, target, targetLength);
            memcpy(path + targetLength, original->path + sourceLength, restLength + 1);
            Inode *copy = newInode(path);
            free(path);
            if (!copy || !grow(&copy->data, &copy->capacity, original->size)) continue;
            memcpy(copy->data, original->data, (size_t)original->size);
            copy->size = original->size;
            for (int64_t index = 0; index * CHUNK < copy->size; index++) markDirty(copy, index);
            makeDurable(copy);
        }
        free(sources);
    }
    free(source);
    free(target);
    pthread_mutex_unlock(&mutex);
}

void hyzer_simdisk_remove(const char *directory) {
    pthread_mutex_lock(&mutex);
    char *prefix = prefixOf(directory);
    if (prefix) removeUnder(prefix);
    free(prefix);
    pthread_mutex_unlock(&mutex);
}

int hyzer_simdisk_exists(const char *path) {
    pthread_mutex_lock(&mutex);
    Inode *inode = named(path);
    int exists = inode != NULL && inode->size > 0;
    pthread_mutex_unlock(&mutex);
    return exists;
}
