/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.block.Block;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Blocks kept on local disk, one file per block, shared by every client of the JVM that names the same
 * directory (and, through the files, by other processes of the same user on the host).
 *
 * <p>A block is named by the SHA-256 of (bucket, key, ETag, block size, index): a new version of an
 * object has a new ETag, so it can never be served an old version's bytes, and no key, name or secret
 * appears in a file name. Each file holds a header (magic, that same hash, block length, one CRC32C per
 * {@value #CHUNK}-byte chunk, a CRC32C of the header) and the block's bytes. Every read checks the
 * header and the CRC of each chunk it returns: a mismatch is a miss, counted, and the file is deleted.
 * Files are written to a temporary name and renamed, so a reader never sees half a block.
 *
 * <p>A cache problem is a miss, never a failed read: a full disk, an I/O error, or the directory deleted
 * while running is counted ({@link Counter#DISK_CACHE_ERRORS}) and the caller fetches from S3. The
 * directory is created private to the user (0700) and files are 0600; a directory that others can read
 * and whose permissions cannot be narrowed is not used.
 *
 * <p>Bounded by {@code cache.disk.max} bytes and by a share of the file system left free, evicting the
 * least recently used blocks. Writes run on one background thread (ending when idle), at most
 * {@value #MAX_PENDING} at a time; a block offered beyond that is skipped, counted. At start the
 * directory is scanned: files with a valid header are reused (their bytes are checked on each hit), the
 * rest deleted — or everything is deleted with {@code cache.disk.clear.on.start}.
 */
public final class DiskCache {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DiskCache.class);

  /** Bytes covered by one CRC32C: a partial read checks only the chunks it touches. */
  static final int CHUNK = 64 * 1024;
  static final int MAX_PENDING = 8;
  static final String SUFFIX = ".blk";
  private static final String TMP_SUFFIX = ".tmp";
  private static final byte[] MAGIC = "SLIPBLK1".getBytes(StandardCharsets.US_ASCII);
  private static final int ID_BYTES = 32;
  /** A temporary file older than this is a leftover of a crashed writer, not one being written. */
  private static final long STALE_TMP_MILLIS = 10 * 60 * 1000;

  private static final Map<Path, DiskCache> OPEN = new HashMap<>();
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final Path dir;
  private final long maxBytes;
  private final double minFree;
  private final boolean posix;
  /** File name to file size, least recently used first. */
  private final LinkedHashMap<String, Long> index = new LinkedHashMap<>(64, 0.75f, true);
  private long totalBytes;
  private final boolean usable;
  private final ThreadPoolExecutor writer;
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicBoolean warned = new AtomicBoolean();

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
      } else if (c.maxBytes != config.cacheMax() || c.minFree != config.cacheMinFree()) {
        LOG.warn("Slipstream disk cache {} is already open with cache.disk.max={} and cache.disk.min.free={};"
            + " this client's {} and {} are not applied", dir, c.maxBytes, c.minFree, config.cacheMax(),
            config.cacheMinFree());
      }
      return c;
    }
  }

  DiskCache(Path dir, long maxBytes, double minFree, boolean clearOnStart) {
    this.dir = dir;
    this.maxBytes = maxBytes;
    this.minFree = minFree;
    this.posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    this.usable = prepareDirectory();
    if (usable) {
      scan(clearOnStart);
    }
    this.writer = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "slipstream-disk-cache-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    writer.allowCoreThreadTimeOut(true);
  }

  /** Waits, at most {@code millis}, until no cache of this JVM has a write pending; true if none has. */
  public static boolean awaitWrites(long millis) {
    return await(millis, () -> {
      synchronized (OPEN) {
        return OPEN.values().stream().allMatch(c -> c.pending.get() == 0);
      }
    });
  }

  /** Waits, at most {@code millis}, until this cache has no write pending; true if it has none. */
  public boolean awaitIdle(long millis) {
    return await(millis, () -> pending.get() == 0);
  }

  private static boolean await(long millis, java.util.function.BooleanSupplier idleNow) {
    long deadline = System.nanoTime() + millis * 1_000_000L;
    while (true) {
      if (idleNow.getAsBoolean()) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  public Path directory() {
    return dir;
  }

  /** Bytes of the blocks this process knows to be in the cache. */
  public long sizeBytes() {
    synchronized (index) {
      return totalBytes;
    }
  }

  /** Blocks this process knows to be in the cache. */
  public int blockCount() {
    synchronized (index) {
      return index.size();
    }
  }

  /** Blocks offered and not yet written. */
  public int pendingWrites() {
    return pending.get();
  }

  // ---- reading -------------------------------------------------------------------------------

  /** Reads the whole block {@code key}, {@code length} bytes, into {@code dst[0, length)}; false on a miss. */
  public boolean read(BlockKey key, int length, byte[] dst, ReadStatistics stats) {
    return read(key, length, 0, dst, 0, length, stats);
  }

  /**
   * Reads {@code [from, from + len)} of block {@code key} (whose length is {@code blockLength}) into
   * {@code dst[off, off + len)}, checking the CRC of every chunk it touches. False on a miss: nothing
   * cached, corrupt, or an I/O error, each counted; {@code dst} may then hold garbage.
   */
  public boolean read(BlockKey key, int blockLength, int from, byte[] dst, int off, int len,
      ReadStatistics stats) {
    if (!usable || len <= 0 || from < 0 || from + len > blockLength) {
      return false;
    }
    byte[] id = key.id();
    String name = fileName(id);
    Path file = pathOf(name);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      int chunks = chunks(blockLength);
      int headerLength = headerLength(chunks);
      if (ch.size() != (long) headerLength + blockLength) {
        return corrupt(file, name, stats, "size " + ch.size());
      }
      ByteBuffer header = ByteBuffer.allocate(headerLength).order(ByteOrder.BIG_ENDIAN);
      readFully(ch, header, 0);
      header.flip();
      int[] crcs = checkHeader(header, id, blockLength);
      if (crcs == null) {
        return corrupt(file, name, stats, "header");
      }
      int c0 = from / CHUNK;
      int c1 = (from + len - 1) / CHUNK;
      int dataStart = c0 * CHUNK;
      int dataEnd = Math.min(blockLength, (c1 + 1) * CHUNK);
      boolean aligned = dataStart == from && dataEnd == from + len;
      byte[] data = aligned ? dst : new byte[dataEnd - dataStart];
      int dataOff = aligned ? off : 0;
      readFully(ch, ByteBuffer.wrap(data, dataOff, dataEnd - dataStart), headerLength + (long) dataStart);
      CRC32C crc = new CRC32C();
      for (int c = c0; c <= c1; c++) {
        int s = c * CHUNK - dataStart;
        int n = Math.min(CHUNK, blockLength - c * CHUNK);
        crc.reset();
        crc.update(data, dataOff + s, n);
        if ((int) crc.getValue() != crcs[c]) {
          return corrupt(file, name, stats, "CRC32C of chunk " + c);
        }
      }
      if (!aligned) {
        System.arraycopy(data, from - dataStart, dst, off, len);
      }
      touch(file, name, (long) headerLength + blockLength);
      stats.increment(Counter.DISK_CACHE_HITS);
      stats.add(Counter.DISK_CACHE_BYTES_READ, len);
      return true;
    } catch (NoSuchFileException e) {
      forget(name);
      stats.increment(Counter.DISK_CACHE_MISSES);
      return false;
    } catch (IOException | RuntimeException e) {
      error(stats, "read " + file, e);
      stats.increment(Counter.DISK_CACHE_MISSES);
      return false;
    }
  }

  private boolean corrupt(Path file, String name, ReadStatistics stats, String what) {
    LOG.warn("Slipstream disk cache: {} does not match its {}; dropped, the block is fetched again", file, what);
    stats.increment(Counter.DISK_CACHE_CORRUPT);
    stats.increment(Counter.DISK_CACHE_MISSES);
    delete(file, name);
    return false;
  }

  /** The CRCs of the header's chunks, or null if the header is not this block's. */
  private static int[] checkHeader(ByteBuffer header, byte[] id, int blockLength) {
    byte[] magic = new byte[MAGIC.length];
    header.get(magic);
    byte[] seen = new byte[ID_BYTES];
    header.get(seen);
    int length = header.getInt();
    int chunk = header.getInt();
    if (!Arrays.equals(magic, MAGIC) || (id != null && !Arrays.equals(seen, id)) || chunk != CHUNK
        || (blockLength >= 0 && length != blockLength) || length < 0) {
      return null;
    }
    int[] crcs = new int[chunks(length)];
    if (header.remaining() != crcs.length * 4 + 4) {
      return null;
    }
    for (int i = 0; i < crcs.length; i++) {
      crcs[i] = header.getInt();
    }
    int headerCrc = header.getInt();
    CRC32C crc = new CRC32C();
    crc.update(header.array(), 0, header.limit() - 4);
    return (int) crc.getValue() == headerCrc ? crcs : null;
  }

  // ---- writing -------------------------------------------------------------------------------

  /**
   * Writes {@code block} in the background, unless it is already on disk or too many writes are
   * pending. The block's buffer stays pinned until it is written. Never blocks.
   */
  public void offer(BlockKey key, Block block, ReadStatistics stats) {
    if (!usable || !block.isReady() || !block.claimDiskWrite()) {
      return;
    }
    if (!block.tryPin()) {
      return;
    }
    if (pending.incrementAndGet() > MAX_PENDING) {
      pending.decrementAndGet();
      block.unpin();
      stats.increment(Counter.DISK_CACHE_WRITES_SKIPPED);
      return;
    }
    try {
      writer.execute(() -> {
        try {
          write(key, block.buffer(), block.length(), stats);
        } finally {
          block.unpin(); // before the count drops: whoever sees no pending write sees the memory back
          pending.decrementAndGet();
        }
      });
    } catch (RejectedExecutionException e) {
      pending.decrementAndGet();
      block.unpin();
      stats.increment(Counter.DISK_CACHE_WRITES_SKIPPED);
    }
  }

  /** Writes a block now, on this thread. False if it was not written (counted). */
  public boolean write(BlockKey key, byte[] data, int length, ReadStatistics stats) {
    if (!usable) {
      return false;
    }
    byte[] id = key.id();
    String name = fileName(id);
    byte[] header = header(id, data, length);
    long size = (long) header.length + length;
    if (!makeRoom(size, stats)) {
      stats.increment(Counter.DISK_CACHE_WRITES_SKIPPED);
      return false;
    }
    Path target = pathOf(name);
    Path tmp = null;
    try {
      Path sub = target.getParent();
      if (!Files.isDirectory(sub)) {
        createPrivateDirectories(sub);
      }
      tmp = posix ? Files.createTempFile(sub, name, TMP_SUFFIX, filePermissions())
          : Files.createTempFile(sub, name, TMP_SUFFIX);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        writeFully(ch, ByteBuffer.wrap(header));
        writeFully(ch, ByteBuffer.wrap(data, 0, length));
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      tmp = null;
      synchronized (index) {
        Long old = index.put(name, size);
        totalBytes += size - (old == null ? 0 : old);
      }
      stats.add(Counter.DISK_CACHE_BYTES_WRITTEN, length);
      return true;
    } catch (IOException | RuntimeException e) {
      error(stats, "write " + target, e);
      return false;
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // the directory may be gone or read-only; nothing more to do
        }
      }
    }
  }

  private static byte[] header(byte[] id, byte[] data, int length) {
    int chunks = chunks(length);
    ByteBuffer h = ByteBuffer.allocate(headerLength(chunks)).order(ByteOrder.BIG_ENDIAN);
    h.put(MAGIC).put(id).putInt(length).putInt(CHUNK);
    CRC32C crc = new CRC32C();
    for (int c = 0; c < chunks; c++) {
      crc.reset();
      crc.update(data, c * CHUNK, Math.min(CHUNK, length - c * CHUNK));
      h.putInt((int) crc.getValue());
    }
    crc.reset();
    crc.update(h.array(), 0, h.position());
    h.putInt((int) crc.getValue());
    return h.array();
  }

  /** Evicts least recently used blocks until {@code size} more bytes fit both bounds; false if they cannot. */
  private boolean makeRoom(long size, ReadStatistics stats) {
    if (size > maxBytes) {
      return false;
    }
    synchronized (index) {
      while (totalBytes + size > maxBytes && evictEldest(stats)) {
        // evicting
      }
      if (totalBytes + size > maxBytes) {
        return false;
      }
    }
    try {
      java.nio.file.FileStore store = Files.getFileStore(dir);
      long reserve = (long) (store.getTotalSpace() * minFree);
      while (store.getUsableSpace() - size < reserve) {
        synchronized (index) {
          if (!evictEldest(stats)) {
            return false;
          }
        }
      }
      return true;
    } catch (IOException e) {
      error(stats, "check free space of " + dir, e);
      return false;
    }
  }

  /** Deletes the least recently used block; false if there is none. Caller holds the index lock. */
  private boolean evictEldest(ReadStatistics stats) {
    Iterator<Map.Entry<String, Long>> it = index.entrySet().iterator();
    if (!it.hasNext()) {
      return false;
    }
    Map.Entry<String, Long> e = it.next();
    it.remove();
    totalBytes -= e.getValue();
    try {
      Files.deleteIfExists(pathOf(e.getKey()));
    } catch (IOException ex) {
      LOG.debug("Slipstream disk cache: could not delete {}", e.getKey(), ex);
    }
    stats.increment(Counter.DISK_CACHE_EVICTIONS);
    return true;
  }

  // ---- index ---------------------------------------------------------------------------------

  private void touch(Path file, String name, long size) {
    synchronized (index) {
      if (index.get(name) == null) {
        index.put(name, size); // written by another process, or before a cache directory was recreated
        totalBytes += size;
      }
    }
    try {
      Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
    } catch (IOException ignored) {
      // recency across restarts is a hint only
    }
  }

  private void forget(String name) {
    synchronized (index) {
      Long size = index.remove(name);
      if (size != null) {
        totalBytes -= size;
      }
    }
  }

  private void delete(Path file, String name) {
    forget(name);
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // a read-only directory: the entry stays corrupt on disk and keeps being a miss
    }
  }

  /** Reuses valid blocks found on disk (oldest first in the eviction order), deletes the rest. */
  private void scan(boolean clear) {
    record Found(Path path, String name, long size, long modified) {}
    List<Found> found = new ArrayList<>();
    int dropped = 0;
    try (Stream<Path> files = Files.walk(dir, 2)) {
      for (Iterator<Path> it = files.iterator(); it.hasNext(); ) {
        Path p = it.next();
        String fn = p.getFileName().toString();
        if (!Files.isRegularFile(p)) {
          continue;
        }
        long modified = Files.getLastModifiedTime(p).toMillis();
        if (fn.endsWith(TMP_SUFFIX)) {
          if (clear || System.currentTimeMillis() - modified > STALE_TMP_MILLIS) {
            Files.deleteIfExists(p);
          }
          continue;
        }
        if (!fn.endsWith(SUFFIX)) {
          continue;
        }
        String name = fn.substring(0, fn.length() - SUFFIX.length());
        if (clear || !validFile(p, name)) {
          Files.deleteIfExists(p);
          dropped++;
          continue;
        }
        found.add(new Found(p, name, Files.size(p), modified));
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      LOG.warn("Slipstream disk cache: could not scan {}: {}", dir, e.toString());
    }
    found.sort(java.util.Comparator.comparingLong(Found::modified));
    synchronized (index) {
      for (Found f : found) {
        index.put(f.name(), f.size());
        totalBytes += f.size();
      }
      while (totalBytes > maxBytes && evictEldest(ReadStatistics.global())) {
        // over the bound this JVM was given
      }
    }
    if (clear) {
      LOG.info("Slipstream disk cache {}: cleared at start ({} blocks deleted)", dir, dropped);
    } else if (!found.isEmpty() || dropped > 0) {
      LOG.info("Slipstream disk cache {}: {} blocks ({} MiB) reused, {} invalid dropped", dir, index.size(),
          totalBytes >> 20, dropped);
    }
  }

  /** A quick check at start: a header naming this file, and the size it announces. Bytes are checked on each hit. */
  private static boolean validFile(Path p, String name) {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
      ByteBuffer fixed = ByteBuffer.allocate(MAGIC.length + ID_BYTES + 8);
      readFully(ch, fixed, 0);
      int length = fixed.getInt(MAGIC.length + ID_BYTES);
      if (length < 0 || !fileName(Arrays.copyOfRange(fixed.array(), MAGIC.length, MAGIC.length + ID_BYTES))
          .equals(name)) {
        return false;
      }
      int headerLength = headerLength(chunks(length));
      if (ch.size() != (long) headerLength + length) {
        return false;
      }
      ByteBuffer header = ByteBuffer.allocate(headerLength);
      readFully(ch, header, 0);
      header.flip();
      return checkHeader(header, null, length) != null;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  // ---- the directory -------------------------------------------------------------------------

  /** Creates the directory private to the user, or narrows its permissions; false if it cannot be used safely. */
  private boolean prepareDirectory() {
    try {
      if (!Files.isDirectory(dir)) {
        createPrivateDirectories(dir);
      } else if (posix) {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
        if (!perms.equals(PosixFilePermissions.fromString("rwx------"))) {
          Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        }
      }
      return true;
    } catch (IOException | RuntimeException e) {
      if (Files.isDirectory(dir) && !isPrivate()) {
        LOG.warn("Slipstream disk cache disabled: {} is readable by others and its permissions cannot be set to"
            + " 0700 ({}); set cache.disk.dir to a directory of your own", dir, e.toString());
        return false;
      }
      // Not there and cannot be created now (a read-only parent): every write tries again, counted.
      LOG.warn("Slipstream disk cache: cannot create {} ({}); reads go to S3 until it can be", dir, e.toString());
      return true;
    }
  }

  private boolean isPrivate() {
    try {
      return !posix || Files.getPosixFilePermissions(dir).stream().noneMatch(p -> p.name().startsWith("GROUP")
          || p.name().startsWith("OTHERS"));
    } catch (IOException e) {
      return false;
    }
  }

  private void createPrivateDirectories(Path p) throws IOException {
    if (posix) {
      Files.createDirectories(p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } else {
      Files.createDirectories(p);
    }
  }

  private static FileAttribute<Set<PosixFilePermission>> filePermissions() {
    return PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
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

  // ---- names and layout ----------------------------------------------------------------------

  Path pathOf(String name) {
    return dir.resolve(name.substring(0, 2)).resolve(name + SUFFIX);
  }

  /** The file holding {@code key}, whether it exists or not; for tests and tools. */
  public Path fileOf(BlockKey key) {
    return pathOf(fileName(key.id()));
  }

  private static String fileName(byte[] id) {
    return HexFormat.of().formatHex(id);
  }

  private static int chunks(int length) {
    return (length + CHUNK - 1) / CHUNK;
  }

  private static int headerLength(int chunks) {
    return MAGIC.length + ID_BYTES + 4 + 4 + 4 * chunks + 4;
  }

  private static void readFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
    while (b.hasRemaining()) {
      int n = ch.read(b, at);
      if (n < 0) {
        throw new java.io.EOFException("cache file shorter than its header says");
      }
      at += n;
    }
  }

  private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  /**
   * What names a cached block: the object version (bucket, key, ETag) and the block's place in it.
   * Hashed for file names and headers; never holds a credential.
   */
  public record BlockKey(String bucket, String key, String etag, int blockSize, long index) {
    public BlockKey {
      java.util.Objects.requireNonNull(etag, "etag");
    }

    byte[] id() {
      try {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (String s : new String[] {bucket, key, etag}) {
          byte[] b = s.getBytes(StandardCharsets.UTF_8);
          md.update(ByteBuffer.allocate(4).putInt(b.length).array());
          md.update(b);
        }
        md.update(ByteBuffer.allocate(12).putInt(blockSize).putLong(index).array());
        return md.digest();
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is missing from this JVM", e);
      }
    }
  }
}
