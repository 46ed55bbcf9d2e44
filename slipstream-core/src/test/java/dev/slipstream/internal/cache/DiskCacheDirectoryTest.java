/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The disk cache touches only what it created, and never adopts what it did not (issue 16; issue 21,
 * points 7, 10 and 11): a directory full of a user's files keeps every file, byte and mode through
 * start, reads, eviction, clear-on-start and close; directories owned by someone else, symlinks and
 * directories others may write to are refused, never changed, and reads go on from S3.
 */
@Timeout(120)
class DiskCacheDirectoryTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "cache-dir";
  static final int BLOCK = 128 * 1024;
  static final long SIZE = 10L * BLOCK + 77;
  static final long THREE_DAYS = 3L * 24 * 3600 * 1000;
  @TempDir Path tmp;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "obj", 5, SIZE);
  }

  @BeforeEach
  void posixOnly() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        FileSystems.getDefault().supportedFileAttributeViews().contains("posix"), "a POSIX file system");
  }

  private static SlipstreamConfig.Builder config(Path cacheDir) {
    return SlipstreamConfig.builder()
        .set("endpoint", S3.server().endpoint().toString())
        .set("region", EmbeddedS3Server.REGION)
        .set("path.style.access", "true")
        .set("access.key", EmbeddedS3Server.ACCESS_KEY)
        .set("secret.key", EmbeddedS3Server.SECRET_KEY)
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "8M")
        .set("cache.disk.mode", "all")
        // four blocks: reading ten evicts
        .set("cache.disk.max", String.valueOf(4 * (BLOCK + 1024)))
        .set("cache.disk.dir", cacheDir.toString());
  }

  /** Reads the object whole, twice, checking every byte; waits for the cache's writes. */
  private static void readTwice(SlipstreamConfig config) throws IOException {
    try (Slipstream c = Slipstream.builder().isolatedResources().config(config).build()) {
      for (int i = 0; i < 2; i++) {
        try (SlipstreamInputStream in = c.open(S3Location.parse("s3://" + BUCKET + "/obj"))) {
          byte[] all = in.readAllBytes();
          assertThat((long) all.length).isEqualTo(SIZE);
          assertThat(TestData.firstMismatch(5, 0, all, 0, all.length)).isEqualTo(-1);
        }
        Slipstream.awaitDiskCacheWrites(Duration.ofSeconds(30));
      }
    }
  }

  /** A user's directory: old and new *.tmp, other names, subdirectories, a symlink out, a fake cache file. */
  private static void fillWithUserFiles(Path dir, Path outside) throws IOException {
    Files.createDirectories(dir);
    Files.createDirectories(outside);
    Files.writeString(outside.resolve("target.txt"), "outside the user's directory");
    Files.writeString(dir.resolve("b.txt"), "keep me");
    write(dir.resolve("notes.tmp"), "old notes", THREE_DAYS, "rw-r--r--");
    write(dir.resolve("fresh.tmp"), "new notes", 0, "rw-rw-r--");
    Files.createDirectories(dir.resolve("sub"));
    write(dir.resolve("sub/work.tmp"), "old work", THREE_DAYS, "rw-------");
    String hex = "ab".repeat(32);
    write(dir.resolve(hex + ".blk"), "the cache's suffix, not its format", THREE_DAYS, "rw-r--r--");
    Files.createDirectories(dir.resolve("ab"));
    write(dir.resolve("ab/" + hex + ".blk"), "a shard's name, not the cache's directory", THREE_DAYS, "rw-r--r--");
    write(dir.resolve("ab/" + hex + ".0123456789abcdef.tmp"), "a temp name, not in the cache's directory",
        THREE_DAYS, "rw-r--r--");
    Files.createSymbolicLink(dir.resolve("link-out"), outside);
    Files.setPosixFilePermissions(dir.resolve("sub"), PosixFilePermissions.fromString("rwxr-x---"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static void write(Path p, String text, long age, String mode) throws IOException {
    Files.writeString(p, text);
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    if (age > 0) {
      Files.setLastModifiedTime(p, FileTime.fromMillis(System.currentTimeMillis() - age));
    }
  }

  /** Every path under {@code dir} (not following links, not into the cache's own directory): type, mode, bytes. */
  private static Map<String, String> snapshot(Path dir) throws IOException {
    Map<String, String> m = new TreeMap<>();
    m.put(".", mode(dir));
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String rel = dir.relativize(p).toString();
        boolean cachesOwn = false;
        for (Path part : dir.relativize(p)) {
          cachesOwn |= part.toString().equals(CacheDirectory.OWN_NAME);
        }
        if (rel.isEmpty() || cachesOwn) {
          continue;
        }
        if (Files.isSymbolicLink(p)) {
          m.put(rel, "link -> " + Files.readSymbolicLink(p));
        } else if (Files.isDirectory(p)) {
          m.put(rel, "dir " + mode(p));
        } else {
          m.put(rel, "file " + mode(p) + " " + Files.getLastModifiedTime(p) + " "
              + java.util.Arrays.hashCode(Files.readAllBytes(p)) + " " + Files.size(p));
        }
      }
    }
    return m;
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
  }

  @ParameterizedTest
  @ValueSource(strings = {"the directory", "its parent", "/tmp"})
  void aDirectoryOfUserFilesKeepsEveryFileByteAndMode(String where) throws IOException {
    Path parent = tmp.resolve("home");
    Path user = parent.resolve("data");
    fillWithUserFiles(user, tmp.resolve("elsewhere"));
    Path cacheDir = switch (where) {
      case "the directory" -> user;
      case "its parent" -> parent;
      default -> Path.of("/tmp");
    };
    // In /tmp itself too: an old *.tmp and a fake cache file, with names no one else uses.
    String unique = "slipstream-test-" + Long.toHexString(new Random().nextLong());
    Path tmpOld = Path.of("/tmp", unique + ".tmp");
    Path tmpBlk = Path.of("/tmp", "cd".repeat(32) + "." + unique + ".blk");
    write(tmpOld, "someone's old temp file", THREE_DAYS, "rw-r--r--");
    write(tmpBlk, "someone's file", THREE_DAYS, "rw-r--r--");
    boolean ownExisted = Files.exists(cacheDir.resolve(CacheDirectory.OWN_NAME));
    Map<String, String> before = snapshot(parent);
    String tmpMode = mode(Path.of("/tmp"));
    Map<String, String> tmpFiles = Map.of(tmpOld.toString(), Files.readString(tmpOld), tmpBlk.toString(),
        Files.readString(tmpBlk));
    try {
      readTwice(config(cacheDir).build()); // start, reads, eviction (10 blocks, room for 4), close
      DiskCache c = new DiskCache(cacheDir.toAbsolutePath(), 4 * (BLOCK + 1024), 0, true); // clear.on.start
      assertThat(c.isUsable()).isTrue();
      assertThat(c.blockCount()).isZero();
      c.write(new DiskCache.BlockKey("b", "k", "e", BLOCK, 0), new byte[BLOCK], BLOCK,
          ReadStatistics.global().child());

      assertThat(snapshot(parent)).isEqualTo(before);
      assertThat(mode(Path.of("/tmp"))).isEqualTo(tmpMode);
      for (Map.Entry<String, String> e : tmpFiles.entrySet()) {
        assertThat(Files.readString(Path.of(e.getKey()))).isEqualTo(e.getValue());
      }
      assertThat(mode(tmpOld)).isEqualTo("rw-r--r--");
      // What the cache made: its own directory, private, marked.
      Path own = cacheDir.resolve(CacheDirectory.OWN_NAME);
      assertThat(mode(own)).isEqualTo("rwx------");
      assertThat(Files.readString(own.resolve(CacheDirectory.MARKER))).isEqualTo(CacheDirectory.MARKER_TEXT);
      assertThat(mode(own.resolve(CacheDirectory.MARKER))).isEqualTo("rw-------");
    } finally {
      Files.deleteIfExists(tmpOld);
      Files.deleteIfExists(tmpBlk);
      if (cacheDir.equals(Path.of("/tmp")) && !ownExisted) {
        deleteTree(cacheDir.resolve(CacheDirectory.OWN_NAME));
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static UserPrincipal nobody() throws IOException {
    return FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
  }

  private static void assumeRoot() throws IOException {
    org.junit.jupiter.api.Assumptions.assumeTrue(CacheDirectory.currentUser().getName().equals("root"),
        "runs as root, to give a directory to another user");
  }

  /** The refusal's message, and the check that the cache is off and nothing was changed. */
  private static String refused(Path cacheDir, Path checked) throws IOException {
    String modeBefore = mode(checked);
    UserPrincipal ownerBefore = Files.getOwner(checked, LinkOption.NOFOLLOW_LINKS);
    assertThatThrownBy(() -> new CacheDirectory(cacheDir).prepare()).isInstanceOf(CacheDirectory.Refused.class);
    String message;
    try {
      new CacheDirectory(cacheDir).prepare();
      throw new AssertionError("not refused");
    } catch (CacheDirectory.Refused e) {
      message = e.getMessage();
    }
    DiskCache c = new DiskCache(cacheDir, 1L << 30, 0, true);
    assertThat(c.isUsable()).isFalse();
    assertThat(c.write(new DiskCache.BlockKey("b", "k", "e", BLOCK, 0), new byte[BLOCK], BLOCK,
        ReadStatistics.global().child())).isFalse();
    assertThat(mode(checked)).as("never chmodded").isEqualTo(modeBefore);
    assertThat(Files.getOwner(checked, LinkOption.NOFOLLOW_LINKS)).isEqualTo(ownerBefore);
    return message;
  }

  @Test
  void aCacheDirectoryOwnedByAnotherUserIsRefusedAndReadsGoOnFromS3() throws IOException {
    assumeRoot();
    Path theirs = tmp.resolve("theirs");
    Files.createDirectory(theirs);
    Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwx------"));
    Files.setOwner(theirs, nobody());
    assertThat(refused(theirs, theirs)).contains(theirs.toString()).contains("nobody").contains("cache.disk.dir");
    assertThat(theirs.resolve(CacheDirectory.OWN_NAME)).doesNotExist();
    readTwice(config(theirs).build());
    assertThat(theirs.resolve(CacheDirectory.OWN_NAME)).doesNotExist();
  }

  @Test
  void theCachesOwnDirectoryMadeFirstByAnotherUserIsNeverAdopted() throws IOException {
    assumeRoot();
    Path mine = tmp.resolve("mine");
    Path own = mine.resolve(CacheDirectory.OWN_NAME);
    Files.createDirectories(own);
    Files.writeString(own.resolve(CacheDirectory.MARKER), CacheDirectory.MARKER_TEXT);
    Files.setPosixFilePermissions(own, PosixFilePermissions.fromString("rwx------"));
    Files.setOwner(own, nobody());
    assertThat(refused(mine, own)).contains(own.toString()).contains("nobody");
    readTwice(config(mine).build());
    try (Stream<Path> s = Files.walk(own)) {
      assertThat(s.filter(p -> p.toString().endsWith(".blk"))).as("no block written into it").isEmpty();
    }
  }

  @Test
  void aSymlinkPlantedWhereTheDefaultDirectoryWouldBeIsRefused() throws IOException {
    Path fakeTmp = tmp.resolve("shared-tmp");
    Path target = tmp.resolve("attacker");
    Files.createDirectories(fakeTmp);
    Files.createDirectories(target);
    String old = System.getProperty("java.io.tmpdir");
    System.setProperty("java.io.tmpdir", fakeTmp.toString());
    try {
      SlipstreamConfig cfg = config(tmp).set("cache.disk.dir", "").build();
      Path defaultDir = cfg.cacheDir();
      assertThat(defaultDir.getParent()).isEqualTo(fakeTmp);
      Files.createSymbolicLink(defaultDir, target);
      assertThatThrownBy(() -> new CacheDirectory(defaultDir).prepare()).isInstanceOf(CacheDirectory.Refused.class)
          .hasMessageContaining(defaultDir.toString()).hasMessageContaining("symbolic link");
      assertThat(new DiskCache(defaultDir, 1L << 30, 0, false).isUsable()).isFalse();
      readTwice(cfg);
      try (Stream<Path> s = Files.list(target)) {
        assertThat(s).as("nothing written through the link").isEmpty();
      }
      // The cache's own directory as a symlink is refused as well.
      Path mine = tmp.resolve("mine");
      Files.createDirectories(mine);
      Files.createSymbolicLink(mine.resolve(CacheDirectory.OWN_NAME), target);
      assertThatThrownBy(() -> new CacheDirectory(mine).prepare()).isInstanceOf(CacheDirectory.Refused.class)
          .hasMessageContaining("symbolic link");
    } finally {
      System.setProperty("java.io.tmpdir", old);
    }
  }

  @Test
  void directoriesOthersMayWriteToAreRefusedUnlessStickyAndNeverChmodded() throws IOException {
    Path open = tmp.resolve("open");
    Files.createDirectory(open);
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThat(refused(open, open)).contains("sticky");
    Path sticky = tmp.resolve("sticky");
    Files.createDirectory(sticky);
    Files.setAttribute(sticky, "unix:mode", 01777);
    assertThat(new DiskCache(sticky, 1L << 30, 0, false).isUsable()).as("like /tmp").isTrue();
    assertThat((Integer) Files.getAttribute(sticky, "unix:mode") & 07777).isEqualTo(01777);
    // The cache's own directory, opened to others after it was made, is refused, not narrowed.
    Path mine = tmp.resolve("mine");
    DiskCache first = new DiskCache(mine, 1L << 30, 0, false);
    assertThat(first.isUsable()).isTrue();
    Files.setPosixFilePermissions(first.filesDirectory(), PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(refused(mine, first.filesDirectory())).contains("chmod 700");
    // And one with no marker that holds files is not the cache's.
    Path unmarked = tmp.resolve("unmarked");
    Files.createDirectories(unmarked.resolve(CacheDirectory.OWN_NAME));
    Files.setPosixFilePermissions(unmarked.resolve(CacheDirectory.OWN_NAME),
        PosixFilePermissions.fromString("rwx------"));
    Files.writeString(unmarked.resolve(CacheDirectory.OWN_NAME).resolve("mine.txt"), "a user's file");
    assertThat(refused(unmarked, unmarked.resolve(CacheDirectory.OWN_NAME))).contains(CacheDirectory.MARKER);
    assertThat(unmarked.resolve(CacheDirectory.OWN_NAME).resolve("mine.txt")).hasContent("a user's file");
  }

  @Test
  void theCachesOwnDirectoryOpenedToOthersWhileInUseIsRefusedAtTheNextRead() throws IOException {
    DiskCache c = new DiskCache(tmp.resolve("opened"), 1L << 30, 0, false);
    ReadStatistics s = ReadStatistics.global().child();
    DiskCache.BlockKey k = new DiskCache.BlockKey("b", "k", "e", BLOCK, 0);
    byte[] data = new byte[BLOCK];
    new Random(5).nextBytes(data);
    assertThat(c.write(k, data, BLOCK, s)).isTrue();
    byte[] out = new byte[BLOCK];
    assertThat(c.read(k, BLOCK, out, s, DiskCacheTest.OPEN)).as("ours, as made").isTrue();
    Files.setPosixFilePermissions(c.filesDirectory(), PosixFilePermissions.fromString("rwx--x---"));
    assertThat(c.read(k, BLOCK, out, s, DiskCacheTest.OPEN)).as("group may enter").isFalse();
    assertThat(c.isUsable()).isFalse();
    assertThat(mode(c.filesDirectory())).as("never chmodded back").isEqualTo("rwx--x---");
  }

  @Test
  void theCachesOwnDirectoryGivenToAnotherUserWhileInUseIsRefusedAtTheNextRead() throws IOException {
    assumeRoot();
    DiskCache c = new DiskCache(tmp.resolve("given"), 1L << 30, 0, false);
    ReadStatistics s = ReadStatistics.global().child();
    DiskCache.BlockKey k = new DiskCache.BlockKey("b", "k", "e", BLOCK, 0);
    assertThat(c.write(k, new byte[BLOCK], BLOCK, s)).isTrue();
    byte[] out = new byte[BLOCK];
    assertThat(c.read(k, BLOCK, out, s, DiskCacheTest.OPEN)).as("ours, as made").isTrue();
    Files.setOwner(c.filesDirectory(), nobody());
    assertThat(c.read(k, BLOCK, out, s, DiskCacheTest.OPEN)).as("nobody's now").isFalse();
    assertThat(c.isUsable()).isFalse();
    assertThat(Files.getOwner(c.filesDirectory(), LinkOption.NOFOLLOW_LINKS)).isEqualTo(nobody());
  }

  @Test
  void aDirectoryDeletedWhileRunningIsMadeAgainWithTheSameChecks() throws IOException {
    Path root = tmp.resolve("cleaned");
    DiskCache c = new DiskCache(root, 1L << 30, 0, false);
    ReadStatistics s = ReadStatistics.global().child();
    byte[] data = new byte[BLOCK];
    new Random(3).nextBytes(data);
    DiskCache.BlockKey k0 = new DiskCache.BlockKey("b", "k", "e", BLOCK, 0);
    assertThat(c.write(k0, data, BLOCK, s)).isTrue();
    deleteTree(root); // a tmp cleaner
    DiskCache.BlockKey k1 = new DiskCache.BlockKey("b", "k", "e", BLOCK, 1);
    assertThat(c.write(k1, data, BLOCK, s)).as("made again").isTrue();
    assertThat(mode(c.filesDirectory())).isEqualTo("rwx------");
    assertThat(mode(root)).isEqualTo("rwx------");
    assertThat(c.filesDirectory().resolve(CacheDirectory.MARKER)).hasContent(CacheDirectory.MARKER_TEXT.trim()
        + "\n");
    byte[] out = new byte[BLOCK];
    assertThat(c.read(k1, BLOCK, out, s, DiskCacheTest.OPEN)).isTrue();
    assertThat(out).isEqualTo(data);
    assertThat(c.blockCount()).isEqualTo(1);
    // Deleted again, and a symlink planted in its place: refused, the cache goes off.
    deleteTree(c.filesDirectory());
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
    Files.createSymbolicLink(c.filesDirectory(), elsewhere);
    assertThat(c.write(k0, data, BLOCK, s)).isFalse();
    assertThat(c.isUsable()).isFalse();
    try (Stream<Path> files = Files.list(elsewhere)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void theMaxBoundsTheDirectorySharedByProcessesEvictingTheLeastRecentlyUsedOfAll() throws IOException {
    Path shared = tmp.resolve("shared");
    long fileSize = BLOCK + BlockFile.headerLength(BlockFile.chunks(BLOCK));
    long max = 4 * fileSize;
    // Three processes on one directory: each its own DiskCache, its own index.
    DiskCache[] procs = {new DiskCache(shared, max, 0, false), new DiskCache(shared, max, 0, false),
        new DiskCache(shared, max, 0, false)};
    ReadStatistics s = ReadStatistics.global().child();
    byte[] data = new byte[BLOCK];
    int written = 0;
    for (int round = 0; round < 4; round++) {
      for (int p = 0; p < procs.length; p++) {
        DiskCache.BlockKey k = new DiskCache.BlockKey("b", "p" + p, "e", BLOCK, round);
        assertThat(procs[p].write(k, data, BLOCK, s)).isTrue();
        written++;
        assertThat(directoryBytes(shared)).as("after write %d", written).isLessThanOrEqualTo(max);
      }
    }
    // The least recently used of all goes first, whichever process wrote or used it. Give the four
    // blocks left distinct ages, oldest first: a, b, c, d.
    java.util.List<DiskCache.BlockKey> left = new java.util.ArrayList<>();
    for (int round = 0; round < 4; round++) {
      for (int p = 0; p < procs.length; p++) {
        DiskCache.BlockKey k = new DiskCache.BlockKey("b", "p" + p, "e", BLOCK, round);
        if (Files.exists(procs[0].fileOf(k))) {
          left.add(k);
        }
      }
    }
    assertThat(left).hasSize(4);
    long now = System.currentTimeMillis();
    for (int i = 0; i < 4; i++) {
      Files.setLastModifiedTime(procs[0].fileOf(left.get(i)), FileTime.fromMillis(now - 60_000 + i * 1000));
    }
    // Process 0 uses a (written by process 2); then process 1 writes: b goes, whoever wrote it.
    assertThat(procs[0].read(left.get(0), BLOCK, new byte[BLOCK], s, DiskCacheTest.OPEN)).isTrue();
    assertThat(procs[1].write(new DiskCache.BlockKey("b", "p1", "e", BLOCK, 99), data, BLOCK, s)).isTrue();
    assertThat(procs[0].fileOf(left.get(0))).exists();
    assertThat(procs[0].fileOf(left.get(1))).doesNotExist();
    assertThat(procs[0].fileOf(left.get(2))).exists();
    assertThat(directoryBytes(shared)).isLessThanOrEqualTo(max);
  }

  private static long directoryBytes(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.toString().endsWith(".blk")).mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
