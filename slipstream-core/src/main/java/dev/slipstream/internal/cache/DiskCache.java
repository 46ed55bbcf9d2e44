/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.ReadStatistics;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.block.Scratch;
import dev.slipstream.internal.util.AccessGate;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32C;

/**
 * Blocks kept on local disk, one file per block, shared by every client of the JVM that names the same
 * directory (and, through the files, by other processes of the same user on the host). This class is
 * the face: it owns the JVM-wide registry of open caches, the start, reading and writing a block file,
 * and the recovery of the directory; {@link CacheWriter} writes offered blocks in the background, {@link
 * CacheSpace} keeps the bounds and evicts.
 *
 * <p>A block is named by the SHA-256 of (bucket, key, ETag, block size, index): a new version of an
 * object has a new ETag, so it can never be served an old version's bytes, and no key, name or secret
 * appears in a file name. The file format is {@link BlockFile}'s; every read checks the header and the
 * CRC of each chunk it returns: a mismatch is a miss, counted, and the file is deleted. Files are written
 * to a temporary name and renamed, so a reader never sees half a block. A thread hashes an object
 * version's part of the id once for its successive blocks of that version.
 *
 * <p>A miss, the usual answer on a first read, costs no open: a block the {@link BlockIndex} of this process
 * holds (written, scanned or read here) is opened; any other is first looked for with one {@code stat}, which
 * answers without an exception, so a block another process wrote into the shared directory is still found on
 * this process's first read of it, and then indexed.
 *
 * <p>The cache touches only what it created: its files live in a directory of its own under {@code
 * cache.disk.dir}, checked and created by {@link CacheDirectory}; a directory it may not use turns the
 * cache off for the JVM, with one warning. A cached byte is served only once the caller's {@link AccessGate}
 * lets it through: S3 must have answered the open for that object (docs/architecture.md, rule 8).
 *
 * <p>A cache problem is a miss, never a failed read (rule 2): a full disk, an I/O error, or the
 * directory deleted while running is counted ({@link Counter#DISK_CACHE_ERRORS}) and the caller fetches
 * from S3; a deleted directory is made again, with the same checks. Bounded by {@code cache.disk.max}
 * bytes over the whole directory and by a share of the file system left free, evicting the least
 * recently used blocks. Writes run on one background thread (ending when idle), at most {@value
 * CacheWriter#MAX_PENDING} at a time; a block offered beyond that is skipped, counted.
 */
public final class DiskCache {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CacheSpace.LOGGER);

  private static final Map<Path, DiskCache> OPEN = new HashMap<>();

  private final CacheDirectory directory;
  private final CacheSpace space;
  private volatile boolean usable;
  private final CacheWriter writer;
  private final RangesSeen rangesSeen = new RangesSeen();
  private final AtomicBoolean warned = new AtomicBoolean();
  private final AtomicBoolean recreated = new AtomicBoolean();

  /**
   * The cache for {@code config}'s directory, opened (and scanned) on first use in this JVM. The bounds
   * of the first configuration to open a directory apply to it.
   */
  public static DiskCache open(SlipstreamConfig config) {
    Path dir = config.cacheDir().toAbsolutePath().normalize();
    synchronized (OPEN) {
      DiskCache c = OPEN.get(dir);
      if (c == null) {
        c = new DiskCache(dir, config.cacheMax(), config.cacheMinFree(), config.cacheClearOnStart());
        OPEN.put(dir, c);
      } else if (c.space.maxBytes() != config.cacheMax() || c.space.minFree() != config.cacheMinFree()) {
        LOG.warn("Slipstream disk cache {} is already open with cache.disk.max={} and cache.disk.min.free={};"
            + " this client's {} and {} are not applied", dir, c.space.maxBytes(), c.space.minFree(),
            config.cacheMax(), config.cacheMinFree());
      }
      return c;
    }
  }

  DiskCache(Path dir, long maxBytes, double minFree, boolean clearOnStart) {
    this(dir, maxBytes, minFree, clearOnStart, CacheSpace.MAX_FILES);
  }

  DiskCache(Path dir, long maxBytes, double minFree, boolean clearOnStart, int maxFiles) {
    this.directory = new CacheDirectory(dir);
    this.space = new CacheSpace(directory, maxBytes, minFree, maxFiles);
    this.usable = start(clearOnStart);
    this.writer = new CacheWriter();
  }

  /** Prepares the directory and scans it; false if the cache may not be used in this JVM. */
  private boolean start(boolean clear) {
    try {
      directory.prepare();
    } catch (CacheDirectory.Refused e) {
      LOG.warn("Slipstream disk cache off for this JVM, reads go to S3: {}", e.getMessage());
      return false;
    } catch (IOException | RuntimeException e) {
      // Not there and cannot be made now (a read-only parent): every write tries again, counted.
      LOG.warn("Slipstream disk cache: cannot create {} ({}); reads go to S3 until it can be", directory.own(),
          e.toString());
      return true;
    }
    BlockIndex.ScanResult r;
    try {
      r = space.scanAtStart(clear);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Slipstream disk cache: could not scan {}: {}", directory.own(), e.toString());
      return true;
    }
    if (clear) {
      LOG.info("Slipstream disk cache {}: cleared at start ({} blocks deleted)", directory.own(), r.dropped());
    } else if (r.reused() > 0 || r.dropped() > 0) {
      LOG.info("Slipstream disk cache {}: {} blocks ({} MiB) reused, {} of an older format dropped", directory.own(),
          r.reused(), sizeBytes() >> 20, r.dropped());
    }
    return true;
  }

  /** Waits, at most {@code millis}, until no cache of this JVM has a write pending; true if none has. */
  public static boolean awaitWrites(long millis) {
    return CacheWriter.await(millis, () -> {
      synchronized (OPEN) {
        return OPEN.values().stream().allMatch(c -> c.writer.pending() == 0);
      }
    });
  }

  /** Waits, at most {@code millis}, until this cache has no write pending; true if it has none. */
  public boolean awaitIdle(long millis) {
    return writer.awaitIdle(millis);
  }

  /** {@code cache.disk.dir} as configured. */
  public Path directory() {
    return directory.root();
  }

  /** The directory the cache keeps its files in, under {@link #directory()}. */
  public Path filesDirectory() {
    return directory.own();
  }

  /** False once the directory was refused: the cache is then off for this JVM. */
  public boolean isUsable() {
    return usable;
  }

  /** Bytes of the blocks this process knows to be in the cache. */
  public long sizeBytes() {
    return space.sizeBytes();
  }

  /** Blocks this process knows to be in the cache. */
  public int blockCount() {
    return space.blockCount();
  }

  /** Blocks offered and not yet written. */
  public int pendingWrites() {
    return writer.pending();
  }

  // ---- reading -------------------------------------------------------------------------------

  /** Reads the whole block {@code key}, {@code length} bytes, into {@code dst[0, length)}; false on a miss. */
  public boolean read(BlockKey key, int length, byte[] dst, ReadStatistics stats, AccessGate gate) throws IOException {
    return read(key, length, 0, dst, 0, length, stats, gate, null);
  }

  /**
   * Reads {@code [from, from + len)} of block {@code key} (whose length is {@code blockLength}) into
   * {@code dst[off, off + len)}, checking the CRC of every chunk it touches, once {@code gate} lets the
   * bytes through. False on a miss: nothing cached, corrupt, or an I/O error, each counted.
   *
   * <p>With {@code scratch}, {@code dst} is a caller's array: the file's bytes are read into a buffer of
   * that pool ({@link Scratch}: never memory beside the budget; a miss on a fetch thread when the pool has
   * none free) and copied to {@code dst} only once the gate let them through, so a refusal or a miss
   * leaves {@code dst} as it was. Without, {@code dst} is a buffer no caller sees before the read returns
   * (a block's or a span's own, read whole): a read aligned to the file's chunks goes straight into it, and
   * a miss may leave garbage there.
   *
   * @throws IOException only the gate's refusal: the store's answer for this open
   */
  public boolean read(BlockKey key, int blockLength, int from, byte[] dst, int off, int len,
      ReadStatistics stats, AccessGate gate, BufferPool scratch) throws IOException {
    if (!usable || len <= 0 || from < 0 || from + len > blockLength) {
      return false;
    }
    byte[] id = key.id();
    String name = BlockFile.name(id);
    Path file = directory.blockFile(name);
    if (!space.knows(id) && !file.toFile().isFile()) {
      // Neither indexed nor written by another process since: a miss without an open, or the exception a
      // failed open builds. (java.io.File asks stat(2) and answers false; Files' checks throw inside.)
      stats.increment(Counter.DISK_CACHE_MISSES);
      return false;
    }
    try {
      directory.checkStill();
    } catch (CacheDirectory.Refused e) {
      refuse(e);
      stats.increment(Counter.DISK_CACHE_MISSES);
      return false;
    } catch (IOException e) {
      stats.increment(Counter.DISK_CACHE_MISSES); // gone: the next write makes it again
      return false;
    }
    long t0 = System.nanoTime();
    byte[] pooled = null;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      int chunks = BlockFile.chunks(blockLength);
      int headerLength = BlockFile.headerLength(chunks);
      if (ch.size() != (long) headerLength + blockLength) {
        return corrupt(file, name, stats, "size " + ch.size());
      }
      ByteBuffer header = ByteBuffer.allocate(headerLength).order(ByteOrder.BIG_ENDIAN);
      BlockFile.readFully(ch, header, 0);
      header.flip();
      int[] crcs = BlockFile.checkHeader(header, id, blockLength);
      if (crcs == null) {
        return corrupt(file, name, stats, "header");
      }
      gate.start();
      int c0 = from / BlockFile.CHUNK;
      int c1 = (from + len - 1) / BlockFile.CHUNK;
      int dataStart = c0 * BlockFile.CHUNK;
      int dataEnd = Math.min(blockLength, (c1 + 1) * BlockFile.CHUNK);
      boolean direct = scratch == null && dataStart == from && dataEnd == from + len;
      byte[] data = dst;
      int dataOff = off;
      if (!direct) {
        if (scratch != null) {
          pooled = Scratch.acquire(scratch, BufferPool.sizeFor(dataEnd - dataStart));
          if (pooled == null) {
            stats.increment(Counter.DISK_CACHE_MISSES); // no memory to spare for it: S3 reads it into dst itself
            return false;
          }
        }
        data = pooled != null ? pooled : new byte[dataEnd - dataStart];
        dataOff = 0;
      }
      BlockFile.readFully(ch, ByteBuffer.wrap(data, dataOff, dataEnd - dataStart), headerLength + (long) dataStart);
      CRC32C crc = new CRC32C();
      for (int c = c0; c <= c1; c++) {
        int s = c * BlockFile.CHUNK - dataStart;
        int n = Math.min(BlockFile.CHUNK, blockLength - c * BlockFile.CHUNK);
        crc.reset();
        crc.update(data, dataOff + s, n);
        if ((int) crc.getValue() != crcs[c]) {
          return corrupt(file, name, stats, "CRC32C of chunk " + c);
        }
      }
      stats.record(Latency.DISK_CACHE_READ, System.nanoTime() - t0); // the gate is S3's time, not the disk's
      awaitGate(gate);
      if (!direct) {
        System.arraycopy(data, from - dataStart, dst, off, len);
      }
      space.touch(file, name, (long) headerLength + blockLength);
      stats.increment(Counter.DISK_CACHE_HITS);
      stats.add(Counter.DISK_CACHE_BYTES_READ, len);
      return true;
    } catch (GateRefused e) {
      throw e.getCause();
    } catch (NoSuchFileException e) {
      space.forget(name);
      stats.increment(Counter.DISK_CACHE_MISSES);
      return false;
    } catch (IOException | RuntimeException e) {
      error(stats, "read " + file, e);
      stats.increment(Counter.DISK_CACHE_MISSES);
      return false;
    } finally {
      if (pooled != null) {
        scratch.release(pooled);
      }
    }
  }

  /** Carries the gate's refusal past the catch that turns cache problems into misses. */
  private static final class GateRefused extends RuntimeException {
    GateRefused(IOException cause) {
      super(cause);
    }

    @Override
    public synchronized IOException getCause() {
      return (IOException) super.getCause();
    }
  }

  private static void awaitGate(AccessGate gate) {
    try {
      gate.await();
    } catch (IOException e) {
      throw new GateRefused(e);
    }
  }

  private boolean corrupt(Path file, String name, ReadStatistics stats, String what) {
    LOG.warn("Slipstream disk cache: {} does not match its {}; dropped, the block is fetched again", file, what);
    stats.increment(Counter.DISK_CACHE_CORRUPT);
    stats.increment(Counter.DISK_CACHE_MISSES);
    space.forget(name);
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // a read-only directory: the entry stays corrupt on disk and keeps being a miss
    }
    return false;
  }

  // ---- writing -------------------------------------------------------------------------------

  /**
   * Writes {@code block} in the background, unless it is already on disk or too many writes are
   * pending. The block's buffer stays pinned until it is written. Never blocks.
   */
  public void offer(BlockKey key, PooledBytes block, ReadStatistics stats) {
    if (!usable || !block.isReady() || !block.claimDiskWrite()) {
      return;
    }
    writer.offer(block, () -> write(key, block.buffer(), block.length(), stats), stats);
  }

  /** Whether range {@code key} was fetched before in this process; remembered now ({@link RangesSeen}). */
  public boolean fetchedBefore(BlockKey key) {
    return rangesSeen.seenBefore(key.id());
  }

  /** Writes a block now, on this thread. False if it was not written (counted). */
  public boolean write(BlockKey key, byte[] data, int length, ReadStatistics stats) {
    if (!usable) {
      return false;
    }
    byte[] id = key.id();
    String name = BlockFile.name(id);
    byte[] header = BlockFile.header(id, data, length);
    long size = (long) header.length + length;
    Path target = directory.blockFile(name);
    Path tmp = null;
    try {
      Path shard;
      try {
        shard = directory.shardFor(name);
      } catch (NoSuchFileException e) {
        if (!recreate(stats)) {
          return false;
        }
        shard = directory.shardFor(name);
      }
      if (!makeRoom(size, stats)) {
        stats.increment(Counter.DISK_CACHE_WRITES_SKIPPED);
        return false;
      }
      tmp = shard.resolve(BlockFile.tempFileName(name));
      try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
          directory.fileAttributes())) {
        BlockFile.writeFully(ch, ByteBuffer.wrap(header));
        BlockFile.writeFully(ch, ByteBuffer.wrap(data, 0, length));
      }
      Files.setLastModifiedTime(tmp, space.stamp());
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      tmp = null;
      space.written(name, size);
      stats.add(Counter.DISK_CACHE_BYTES_WRITTEN, length);
      return true;
    } catch (CacheDirectory.Refused e) {
      refuse(e);
      return false;
    } catch (IOException | RuntimeException e) {
      error(stats, "write " + target, e);
      return false;
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp); // only ever a name this write made (CREATE_NEW)
        } catch (IOException ignored) {
          // the directory may be gone or read-only; nothing more to do
        }
      }
    }
  }

  /** {@link CacheSpace#makeRoom}, a free space that cannot be read counted as an error. */
  private boolean makeRoom(long size, ReadStatistics stats) {
    try {
      return space.makeRoom(size, stats);
    } catch (IOException e) {
      error(stats, "check free space of " + directory.root(), e);
      return false;
    }
  }

  // ---- recovery ------------------------------------------------------------------------------

  /**
   * The cache's directory was deleted while in use (tmp cleaners do that): made again, with every check
   * of the start. False if it cannot be, or may not be, used.
   */
  private boolean recreate(ReadStatistics stats) {
    synchronized (directory) {
      if (!usable) {
        return false;
      }
      if (directory.ownExists()) {
        return true; // another writer made it again meanwhile
      }
      try {
        directory.prepare();
      } catch (CacheDirectory.Refused e) {
        refuse(e);
        return false;
      } catch (IOException | RuntimeException e) {
        error(stats, "make " + directory.own() + " again", e);
        return false;
      }
      space.clear();
      if (recreated.compareAndSet(false, true)) {
        LOG.warn("Slipstream disk cache: {} was missing (deleted while in use, or not creatable at start); made now,"
            + " with the checks of the start", directory.own());
      }
      return true;
    }
  }

  /** The directory may no longer be used: the cache is off for this JVM, said once. */
  private void refuse(CacheDirectory.Refused e) {
    synchronized (directory) {
      if (usable) {
        usable = false;
        LOG.warn("Slipstream disk cache off for this JVM, reads go to S3: {}", e.getMessage());
      }
    }
  }

  private void error(ReadStatistics stats, String what, Exception e) {
    stats.increment(Counter.DISK_CACHE_ERRORS);
    if (warned.compareAndSet(false, true)) {
      LOG.warn("Slipstream disk cache: could not {} ({}); reading from S3 instead. Further cache errors are"
          + " counted (disk_cache_errors) and logged at DEBUG", what, e.toString());
    } else {
      LOG.debug("Slipstream disk cache: could not {}", what, e);
    }
  }

  // ---- names ---------------------------------------------------------------------------------

  /** The file holding {@code key}, whether it exists or not; for tests and tools. */
  public Path fileOf(BlockKey key) {
    return directory.blockFile(BlockFile.name(key.id()));
  }

  /**
   * What names a cached block: the object version (bucket, key, ETag) and the block's place in it.
   * Hashed for file names and headers; never holds a credential.
   */
  public record BlockKey(String bucket, String key, String etag, int blockSize, long index) {
    public BlockKey {
      java.util.Objects.requireNonNull(etag, "etag");
    }

    /**
     * The name of the range {@code [offset, offset + length)} of a version, as a columnar reader fetched
     * it (a footer's tail, a column chunk): found again only by a read of exactly that range. Written as
     * a block whose size is {@code -length} (never a block size) and whose index is {@code offset}.
     */
    public static BlockKey range(String bucket, String key, String etag, long offset, int length) {
      if (length <= 0 || offset < 0) {
        throw new IllegalArgumentException("a range needs offset >= 0 and length > 0: " + offset + ", " + length);
      }
      return new BlockKey(bucket, key, etag, -length, offset);
    }

    /** The block's SHA-256 id, through this thread's {@link ObjectDigest}. */
    byte[] id() {
      return ObjectDigest.THREADS.get().id(bucket, key, etag, blockSize, index);
    }
  }
}
