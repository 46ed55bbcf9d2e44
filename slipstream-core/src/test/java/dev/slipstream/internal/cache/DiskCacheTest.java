/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.util.AccessGate;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The disk cache on its own: file format, corruption, bounds, restart, permissions. */
class DiskCacheTest {
  static final int BLOCK = 200 * 1024 + 13; // not a multiple of the CRC chunk
  @TempDir Path tmp;

  private static byte[] data(int seed, int size) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** A gate that lets every hit through: the access check has its own tests, against S3. */
  static final AccessGate OPEN = new AccessGate() {
    @Override
    public void start() {}

    @Override
    public void await() {}
  };

  private static DiskCache.BlockKey key(long index) {
    return new DiskCache.BlockKey("bucket", "dir/obj", "\"etag-1\"", BLOCK, index);
  }

  private DiskCache cache(Path dir) {
    return new DiskCache(dir, 1L << 30, 0, false);
  }

  @Test
  void theCacheAndItsSpaceLogUnderTheCachesClassName() {
    assertThat(CacheSpace.LOGGER).isEqualTo(DiskCache.class.getName());
  }

  @Test
  void aBlockAnotherProcessWroteAfterThisOneStartedIsReadAndAnAbsentOneIsAMiss() throws IOException {
    Path shared = tmp.resolve("shared");
    DiskCache reader = cache(shared); // two processes on one directory: each its own cache and index
    DiskCache writer = cache(shared);
    ReadStatistics s = ReadStatistics.global().child();
    byte[] d = data(7, BLOCK);
    assertThat(writer.write(key(3), d, BLOCK, s)).isTrue();

    byte[] got = new byte[BLOCK];
    assertThat(reader.read(key(3), BLOCK, got, s, OPEN)).as("the other process's block").isTrue();
    assertThat(got).isEqualTo(d);
    assertThat(reader.read(key(4), BLOCK, got, s, OPEN)).as("a block no one wrote").isFalse();
    assertThat(s.get(Counter.DISK_CACHE_HITS)).isEqualTo(1);
    assertThat(s.get(Counter.DISK_CACHE_MISSES)).isEqualTo(1);
    assertThat(s.get(Counter.DISK_CACHE_ERRORS)).isZero();
  }

  @Test
  void aBlocksIdIsTheSha256OfItsVersionAndPlaceWhateverKeysTheThreadHashedBefore() throws Exception {
    DiskCache.BlockKey[] keys = {key(0), key(1), new DiskCache.BlockKey("bucket", "other", "\"etag-1\"", BLOCK, 1),
        key(1), DiskCache.BlockKey.range("bucket", "dir/obj", "\"etag-2\"", 5, 100), key(2)};
    for (DiskCache.BlockKey k : keys) {
      java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
      for (String part : new String[] {k.bucket(), k.key(), k.etag()}) {
        byte[] b = part.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        md.update(java.nio.ByteBuffer.allocate(4).putInt(b.length).array());
        md.update(b);
      }
      md.update(java.nio.ByteBuffer.allocate(12).putInt(k.blockSize()).putLong(k.index()).array());
      assertThat(k.id()).as("%s", k).isEqualTo(md.digest());
    }
  }

  @Test
  void writtenBlocksReadBackWholeAndInPartsWithEveryByteRight() throws IOException {
    DiskCache c = cache(tmp.resolve("c"));
    ReadStatistics s = ReadStatistics.global().child();
    byte[] d = data(1, BLOCK);
    assertThat(c.write(key(3), d, BLOCK, s)).isTrue();
    byte[] whole = new byte[BLOCK];
    assertThat(c.read(key(3), BLOCK, whole, s, OPEN)).isTrue();
    assertThat(whole).isEqualTo(d);
    Random r = new Random(7);
    for (int i = 0; i < 200; i++) {
      int from = r.nextInt(BLOCK);
      int len = 1 + r.nextInt(BLOCK - from);
      byte[] part = new byte[len + 3];
      BufferPool scratch = i % 2 == 0 ? null : new BufferPool(4L * BLOCK); // straight in, or through a pool's buffer
      assertThat(c.read(key(3), BLOCK, from, part, 3, len, s, OPEN, scratch)).isTrue();
      for (int j = 0; j < len; j++) {
        assertThat(part[3 + j]).isEqualTo(d[from + j]);
      }
    }
    assertThat(c.read(key(4), BLOCK, whole, s, OPEN)).as("another block").isFalse();
    assertThat(c.read(key(3), BLOCK - 1, whole, s, OPEN)).as("another length").isFalse();
    DiskCache.BlockKey otherVersion = new DiskCache.BlockKey("bucket", "dir/obj", "\"etag-2\"", BLOCK, 3);
    assertThat(c.read(otherVersion, BLOCK, whole, s, OPEN)).as("another ETag").isFalse();
    assertThat(s.get(Counter.DISK_CACHE_HITS)).isEqualTo(201);
  }

  @Test
  void aFlippedByteAnywhereInTheFileIsAlwaysDetected() throws IOException {
    DiskCache c = cache(tmp.resolve("c"));
    ReadStatistics s = ReadStatistics.global().child();
    byte[] d = data(2, BLOCK);
    c.write(key(0), d, BLOCK, s);
    Path file = c.fileOf(key(0));
    byte[] pristine = Files.readAllBytes(file);
    int header = pristine.length - BLOCK;
    int checked = 0;
    // Every header byte, and data bytes at a prime stride (about 2,000 positions), each flipped alone.
    for (int at = 0; at < pristine.length; at += at < header ? 1 : 101) {
      byte[] bad = pristine.clone();
      bad[at] ^= (byte) (1 << (at % 8));
      Files.write(file, bad);
      byte[] out = new byte[BLOCK];
      assertThat(c.read(key(0), BLOCK, out, s, OPEN)).as("flip at %d", at).isFalse();
      assertThat(file).as("a corrupt file is deleted").doesNotExist();
      checked++;
    }
    assertThat(s.get(Counter.DISK_CACHE_CORRUPT)).isEqualTo(checked);
    // A partial read checks the chunks it touches: a flip in the chunk read is caught.
    byte[] bad = pristine.clone();
    bad[header + 70_000] ^= 1;
    Files.write(file, bad);
    assertThat(c.read(key(0), BLOCK, 69_000, new byte[2000], 0, 2000, s, OPEN, null)).isFalse();
    // A truncated file is a miss too.
    Files.write(file, java.util.Arrays.copyOf(pristine, pristine.length - 1));
    assertThat(c.read(key(0), BLOCK, new byte[BLOCK], s, OPEN)).isFalse();
  }

  @Test
  void staysWithinItsBoundEvictingTheLeastRecentlyUsed() throws IOException {
    long fileSize = BLOCK + 1024; // the header is well under 1 KiB
    DiskCache c = new DiskCache(tmp.resolve("c"), 3 * fileSize, 0, false);
    ReadStatistics s = ReadStatistics.global().child();
    for (int i = 0; i < 3; i++) {
      assertThat(c.write(key(i), data(i, BLOCK), BLOCK, s)).isTrue();
    }
    assertThat(c.read(key(0), BLOCK, new byte[BLOCK], s, OPEN)).isTrue(); // block 0 is now the most recent
    c.write(key(3), data(3, BLOCK), BLOCK, s);
    assertThat(s.get(Counter.DISK_CACHE_EVICTIONS)).isEqualTo(1);
    assertThat(c.fileOf(key(1))).doesNotExist();
    assertThat(c.fileOf(key(0))).exists();
    assertThat(c.blockCount()).isEqualTo(3);
    assertThat(c.sizeBytes()).isLessThanOrEqualTo(3 * fileSize);
  }

  /**
   * Small files (a small Parquet file's footer and chunks): the cache keeps at most its number of files,
   * so that its index on the heap stays bounded however many small objects are read; a restart with more
   * files in the directory evicts down to it.
   */
  @Test
  void smallFilesStayWithinTheBoundOnFilesAsWellAsBytes() throws IOException {
    ReadStatistics s = ReadStatistics.global().child();
    Path dir = tmp.resolve("c");
    DiskCache c = new DiskCache(dir, 1L << 30, 0, false, 10);
    for (int i = 0; i < 25; i++) {
      DiskCache.BlockKey k = new DiskCache.BlockKey("bucket", "t/part-" + i + ".parquet", "\"e\"", 5_000, 0);
      assertThat(c.write(k, data(i, 5_000), 5_000, s)).isTrue();
    }
    assertThat(c.blockCount()).isEqualTo(10);
    assertThat(s.get(Counter.DISK_CACHE_EVICTIONS)).isEqualTo(15);
    assertThat(c.read(new DiskCache.BlockKey("bucket", "t/part-24.parquet", "\"e\"", 5_000, 0), 5_000,
        new byte[5_000], s, OPEN)).as("the last written").isTrue();
    DiskCache fewer = new DiskCache(dir, 1L << 30, 0, false, 4);
    assertThat(fewer.blockCount()).isEqualTo(4);
  }

  @Test
  void aBoundThatCannotBeMetSkipsTheWriteAndCountsIt() throws IOException {
    ReadStatistics s = ReadStatistics.global().child();
    DiskCache tooSmall = new DiskCache(tmp.resolve("a"), BLOCK, 0, false); // the header does not fit
    assertThat(tooSmall.write(key(0), data(0, BLOCK), BLOCK, s)).isFalse();
    DiskCache noFreeDisk = new DiskCache(tmp.resolve("b"), 1L << 40, 0.9999, false);
    assertThat(noFreeDisk.write(key(0), data(0, BLOCK), BLOCK, s)).isFalse();
    assertThat(s.get(Counter.DISK_CACHE_WRITES_SKIPPED)).isEqualTo(2);
    assertThat(tooSmall.read(key(0), BLOCK, new byte[BLOCK], s, OPEN)).isFalse();
  }

  @Test
  void anUnwritableDirectoryIsAnErrorCountedNeverAFailure() throws IOException {
    Path notADir = tmp.resolve("file");
    Files.writeString(notADir, "in the way");
    DiskCache c = cache(notADir.resolve("cache"));
    ReadStatistics s = ReadStatistics.global().child();
    assertThat(c.write(key(0), data(0, BLOCK), BLOCK, s)).isFalse();
    assertThat(c.read(key(0), BLOCK, new byte[BLOCK], s, OPEN)).isFalse();
    assertThat(s.get(Counter.DISK_CACHE_ERRORS)).isPositive();
  }

  @Test
  void aRestartReusesBlocksAndADamagedOneIsAMissDeletedByItsRead() throws IOException {
    Path dir = tmp.resolve("c");
    DiskCache first = cache(dir);
    ReadStatistics s = ReadStatistics.global().child();
    for (int i = 0; i < 4; i++) {
      first.write(key(i), data(i, BLOCK), BLOCK, s);
    }
    // Damage: a header byte, a truncation; and a temporary file left by a writer that died long ago.
    try (RandomAccessFile f = new RandomAccessFile(first.fileOf(key(1)).toFile(), "rw")) {
      f.seek(10);
      f.write(f.read() ^ 0xff);
    }
    try (RandomAccessFile f = new RandomAccessFile(first.fileOf(key(2)).toFile(), "rw")) {
      f.setLength(f.length() - 100);
    }
    String name = first.fileOf(key(0)).getFileName().toString().replace(".blk", "");
    Path stale = first.fileOf(key(0)).resolveSibling(name + ".00000000deadbeef.tmp");
    Files.write(stale, new byte[10]);
    Files.setLastModifiedTime(stale, FileTime.fromMillis(System.currentTimeMillis() - 3_600_000));
    // Not the cache's names, even in its own directory: never deleted.
    Path notOurs = first.fileOf(key(0)).resolveSibling("leftover.tmp");
    Files.write(notOurs, new byte[10]);
    Files.setLastModifiedTime(notOurs, FileTime.fromMillis(System.currentTimeMillis() - 3_600_000));

    // The start opens no block (it indexes names, sizes and times): the damaged ones are found by the
    // read that wants them, a miss, and deleted then.
    DiskCache second = cache(dir);
    assertThat(second.blockCount()).isEqualTo(4);
    assertThat(stale).doesNotExist();
    assertThat(notOurs).exists();
    for (int i : new int[] {0, 3}) {
      byte[] out = new byte[BLOCK];
      assertThat(second.read(key(i), BLOCK, out, s, OPEN)).isTrue();
      assertThat(out).isEqualTo(data(i, BLOCK));
    }
    for (int i : new int[] {1, 2}) {
      assertThat(second.read(key(i), BLOCK, new byte[BLOCK], s, OPEN)).as("damaged block %d", i).isFalse();
      assertThat(first.fileOf(key(i))).doesNotExist();
    }
    assertThat(second.blockCount()).isEqualTo(2);

    DiskCache cleared = new DiskCache(dir, 1L << 30, 0, true);
    assertThat(cleared.blockCount()).isZero();
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder(CacheDirectory.MARKER, "leftover.tmp");
    }
  }

  @Test
  void theDirectoryAndFilesArePrivateToTheUser() throws IOException {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        FileSystems.getDefault().supportedFileAttributeViews().contains("posix"), "a POSIX file system");
    Path dir = tmp.resolve("c");
    DiskCache c = cache(dir);
    c.write(key(0), data(0, BLOCK), BLOCK, ReadStatistics.global().child());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(c.fileOf(key(0)).getParent())))
        .isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(c.fileOf(key(0)))))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(c.filesDirectory())))
        .isEqualTo("rwx------");
    // A directory of the user's with wider permissions is used as it is, never narrowed: the cache's
    // files go into a private directory of its own inside it.
    Path wide = tmp.resolve("wide");
    Files.createDirectory(wide);
    Files.setPosixFilePermissions(wide, PosixFilePermissions.fromString("rwxr-xr-x"));
    DiskCache inWide = cache(wide);
    assertThat(inWide.isUsable()).isTrue();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(wide))).isEqualTo("rwxr-xr-x");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(inWide.filesDirectory())))
        .isEqualTo("rwx------");
    // No key, bucket or ETag in any file name.
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.contains("obj") || n.contains("bucket") || n.contains("etag"));
    }
  }

  /**
   * Memory within the budget only (issue 42, item 9): a read for a caller's array goes through a buffer of
   * the pool even when none is free: on the caller's thread it takes one as a reader's own block does (an
   * idle block is evicted); on a fetch thread, which never waits for memory, it is a miss.
   */
  @Test
  void aReadThroughAPoolWithNoMemoryFreeTakesItFromThePoolNeverBesideIt() throws Exception {
    DiskCache c = cache(tmp.resolve("c"));
    ReadStatistics s = ReadStatistics.global().child();
    byte[] d = data(5, BLOCK);
    assertThat(c.write(key(3), d, BLOCK, s)).isTrue();
    int unit = BufferPool.SIZE_UNIT;
    BufferPool pool = new BufferPool(2L * unit);
    byte[] inUse = pool.tryAcquire(unit); // a stream's, being read
    dev.slipstream.internal.block.Span idle = new dev.slipstream.internal.block.Span(0, pool.tryAcquire(unit), unit,
        pool, s);
    idle.filled();
    idle.unpin(); // fetched, only its owner holds it: the pool's to take back
    byte[] part = new byte[100];

    assertThat(c.read(key(3), BLOCK, 1000, part, 0, 100, s, OPEN, pool)).isTrue();
    assertThat(part).isEqualTo(java.util.Arrays.copyOfRange(d, 1000, 1100));
    assertThat(pool.evictions()).as("the idle block made room for the read's buffer").isOne();

    byte[] taken = pool.tryAcquire(unit); // now every byte of the pool is in use, none idle
    dev.slipstream.internal.fetch.FetchExecutor fetchThreads = new dev.slipstream.internal.fetch.FetchExecutor(1);
    try {
      java.util.concurrent.CompletableFuture<Boolean> hit = new java.util.concurrent.CompletableFuture<>();
      fetchThreads.execute(new dev.slipstream.internal.fetch.FetchExecutor.Task(true) {
        @Override
        public void run() {
          try {
            hit.complete(c.read(key(3), BLOCK, 1000, new byte[100], 0, 100, s, OPEN, pool));
          } catch (Throwable t) {
            hit.completeExceptionally(t);
          }
        }

        @Override
        protected void abandon(IOException why) {
          hit.completeExceptionally(why);
        }
      });
      assertThat(hit.get(10, java.util.concurrent.TimeUnit.SECONDS)).as("on a fetch thread, no memory free: a miss")
          .isFalse();
    } finally {
      fetchThreads.shutdown();
    }
    assertThat(pool.allocatedBytes()).isLessThanOrEqualTo(pool.budget());
    pool.release(inUse);
    pool.release(taken);
  }
}
