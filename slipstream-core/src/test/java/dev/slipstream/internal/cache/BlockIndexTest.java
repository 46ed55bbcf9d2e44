/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The disk cache's index over a real directory: recency, eviction, scans, and the heap it keeps a file. */
class BlockIndexTest {
  @TempDir Path tmp;

  private CacheDirectory directory() throws IOException {
    CacheDirectory d = new CacheDirectory(tmp.resolve("cache"));
    d.prepare();
    return d;
  }

  /** The name of block {@code i}: a real block's, from a SHA-256 id. */
  private static String name(int i) {
    return BlockFile.name(new DiskCache.BlockKey("bucket", "dir/part-" + i, "\"etag\"", 8 << 20, 0).id());
  }

  /** A file under {@code name}, {@code bytes} long, modified at {@code millis}. */
  private static void file(CacheDirectory d, String name, int bytes, long millis) throws IOException {
    d.shardFor(name);
    Path p = d.blockFile(name);
    Files.write(p, new byte[bytes]);
    Files.setLastModifiedTime(p, FileTime.fromMillis(millis));
  }

  @Test
  void keepsAtMost40BytesOfHeapAFileAtTheBoundOnFiles() throws IOException {
    BlockIndex index = new BlockIndex(directory(), 4L << 30, CacheSpace.MAX_FILES);
    for (int i = 0; i < CacheSpace.MAX_FILES; i++) {
      index.written(RecencyTable.name(i * 0x9E3779B97F4A7C15L, ~i * 0xC2B2AE3D27D4EB4FL), 5_000 + i % 1000);
    }
    assertThat(index.size()).isEqualTo(CacheSpace.MAX_FILES);
    assertThat((double) index.heapBytes() / index.size()).as("bytes of heap a file").isLessThanOrEqualTo(40);
  }

  @Test
  void evictsTheLeastRecentlyUsedFileFirstAndDeletesIt() throws IOException {
    CacheDirectory d = directory();
    BlockIndex index = new BlockIndex(d, 1L << 30, 100);
    for (int i = 0; i < 4; i++) {
      file(d, name(i), 100 + i, 1_000_000 + i);
      index.written(name(i), 100 + i);
    }
    index.used(name(0), 100); // now the most recently used
    assertThat(index.totalBytes()).isEqualTo(100 + 101 + 102 + 103);

    assertThat(index.evictEldest()).isTrue();
    assertThat(d.blockFile(name(1))).doesNotExist();
    assertThat(d.blockFile(name(0))).exists();
    assertThat(index.size()).isEqualTo(3);
    assertThat(index.totalBytes()).isEqualTo(100 + 102 + 103);

    index.forget(name(2));
    assertThat(index.evictEldest()).isTrue();
    assertThat(d.blockFile(name(3))).doesNotExist();
    assertThat(d.blockFile(name(2))).as("forgotten, not evicted").exists();
    assertThat(index.evictEldest()).isTrue();
    assertThat(d.blockFile(name(0))).doesNotExist();
    assertThat(index.evictEldest()).isFalse();
    assertThat(index.size()).isZero();
    assertThat(index.totalBytes()).isZero();
  }

  /**
   * Random writes, hits, forgets and evictions over a few hundred names, checked step by step against a
   * {@code LinkedHashMap} in access order: the same files counted, the same bytes, the same eviction order.
   * Enough names that slots collide and rows are reused.
   */
  @Test
  void agreesWithAnAccessOrderedMapOverRandomOperations() throws IOException {
    CacheDirectory d = directory();
    BlockIndex index = new BlockIndex(d, 1L << 30, 150);
    Map<String, Long> model = new LinkedHashMap<>(16, 0.75f, true);
    Random r = new Random(41);
    for (int step = 0; step < 50_000; step++) {
      String name = name(r.nextInt(400));
      long size = 1 + r.nextInt(1 << 20);
      switch (r.nextInt(8)) {
        case 0, 1, 2 -> {
          index.written(name, size);
          model.put(name, size);
        }
        case 3, 4 -> {
          index.used(name, size);
          if (model.get(name) == null) {
            model.put(name, size);
          }
        }
        case 5 -> {
          index.forget(name);
          model.remove(name);
        }
        default -> {
          boolean any = !model.isEmpty();
          assertThat(index.evictEldest()).isEqualTo(any);
          if (any) {
            String eldest = model.keySet().iterator().next();
            model.remove(eldest);
            index.forget(eldest); // evicted already: forgetting it changes nothing
          }
        }
      }
      assertThat(index.size()).isEqualTo(model.size());
      assertThat(index.totalBytes()).isEqualTo(model.values().stream().mapToLong(Long::longValue).sum());
    }
    // The order too: evicting everything deletes each file, least recently used first.
    List<String> order = new ArrayList<>(model.keySet());
    for (String name : order) {
      file(d, name, 1, 0);
    }
    for (int i = 0; i < order.size(); i++) {
      assertThat(index.evictEldest()).isTrue();
      assertThat(d.blockFile(order.get(i))).as("evicted #" + i).doesNotExist();
      if (i + 1 < order.size()) {
        assertThat(d.blockFile(order.get(i + 1))).exists();
      }
    }
    assertThat(index.evictEldest()).isFalse();
  }

  @Test
  void aScanCountsTheDirectoryOldestFirstAndDeletesFilesUnderTheNamesOfBefore() throws IOException {
    CacheDirectory d = directory();
    for (int i = 0; i < 300; i++) {
      file(d, name(i), 10 + i, 2_000_000_000_000L - i * 1000L); // the higher the number, the older
    }
    String legacy = "ab".repeat(32) + BlockFile.SUFFIX; // a whole id's 64 digits: how names were before
    d.shardFor("ab".repeat(16));
    Files.write(d.own().resolve("ab").resolve(legacy), new byte[7]);
    Path notOurs = d.own().resolve("ab").resolve("notes.blk");
    Files.write(notOurs, new byte[7]);

    BlockIndex index = new BlockIndex(d, 1L << 30, 1000);
    BlockIndex.ScanResult r = index.scan(false);

    assertThat(r.reused()).isEqualTo(300);
    assertThat(r.dropped()).isEqualTo(1);
    assertThat(d.own().resolve("ab").resolve(legacy)).doesNotExist();
    assertThat(notOurs).exists();
    assertThat(index.size()).isEqualTo(300);
    assertThat(index.totalBytes()).isEqualTo(300 * 10 + 299 * 300 / 2);
    for (int i = 299; i >= 297; i--) {
      assertThat(index.evictEldest()).isTrue();
      assertThat(d.blockFile(name(i))).doesNotExist();
      assertThat(d.blockFile(name(i - 1))).exists();
    }
  }

  @Test
  void aNameThatIsNoBlocksIsRefused() throws IOException {
    BlockIndex index = new BlockIndex(directory(), 1L << 30, 10);
    assertThatThrownBy(() -> index.written("abc", 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("abc");
    assertThatThrownBy(() -> index.written("g".repeat(32), 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> index.written(name(1), -1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> index.written(name(1), 1L << 32)).isInstanceOf(IllegalArgumentException.class);
    assertThat(index.size()).isZero();
  }

  @Test
  void aNameIsTheFirst128BitsOfTheIdAndRoundTrips() {
    byte[] id = new byte[BlockFile.ID_BYTES];
    for (int i = 0; i < id.length; i++) {
      id[i] = (byte) (0xf0 - i);
    }
    String name = BlockFile.name(id);
    assertThat(name).isEqualTo("f0efeeedecebeae9e8e7e6e5e4e3e2e1");
    assertThat(RecencyTable.name(0xf0efeeedecebeae9L, 0xe8e7e6e5e4e3e2e1L)).isEqualTo(name);
    assertThat(BlockFile.blockName(name + ".blk")).isEqualTo(name);
    assertThat(BlockFile.blockName("ab".repeat(32) + ".blk")).isNull();
    assertThat(BlockFile.isLegacyBlockFile("ab".repeat(32) + ".blk")).isTrue();
    assertThat(BlockFile.isTempFile(BlockFile.tempFileName(name))).isTrue();
  }
}
