/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.slipstream.testkit.Misbehaviour;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3Wire;
import dev.slipstream.testkit.ScriptedS3Server;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Servers that misbehave on purpose (issue 21, points 1-5), on every read path. The rule: success means
 * exactly one version's bytes; anything else is a typed error whose message names the object and what
 * was wrong; never a NullPointerException, never a hang.
 */
@Timeout(60)
class MisbehavingServerTest {
  static final String BUCKET = "odd";
  static final int BLOCK = 256 * 1024;
  /** Four blocks and a bit, as the 24 MiB + 12,345 bytes is with 8 MiB blocks. */
  static final int SIZE = 4 * BLOCK + 12_345;
  /** An object of less than one block. */
  static final int SMALL = 100_000;

  static ScriptedS3Server server;
  static byte[] big;
  static byte[] small;
  static byte[] bigV2;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    big = bytes(SIZE, 1);
    bigV2 = bytes(SIZE, 2);
    small = bytes(SMALL, 3);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @AfterEach
  void resetScript() {
    server.reset();
  }

  static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static Slipstream client(String... extra) {
    SlipstreamConfig.Builder b = TestClients.config(server.endpoint())
        .set("block.size", "256K").set("memory.max", "8M").set("retry.interval", "10ms")
        .set("retry.interval.max", "50ms").set("read.stall.timeout", "10s");
    for (int i = 0; i < extra.length; i += 2) {
      b.set(extra[i], extra[i + 1]);
    }
    return Slipstream.builder().config(b.build()).isolatedResources().build();
  }

  /** The ways a caller reads an object. */
  enum ReadPath {
    SEQUENTIAL, POSITIONAL, VECTORED, FOOTER;

    /** Reads through this path; returns {offset of the bytes in the object, bytes}. */
    Object[] read(Slipstream client, String key) throws IOException {
      try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key))) {
        int length = (int) in.length();
        switch (this) {
          case SEQUENTIAL:
            return new Object[] {0, in.readAllBytes()};
          case POSITIONAL: {
            byte[] all = new byte[length];
            int chunk = 100_000;
            for (int pos = (length - 1) / chunk * chunk; pos >= 0; pos -= chunk) {
              in.readFully(pos, all, pos, Math.min(chunk, length - pos));
            }
            return new Object[] {0, all};
          }
          case VECTORED: {
            byte[] all = new byte[length];
            List<CompletableFuture<Void>> reads = new ArrayList<>();
            int chunk = 150_000;
            for (int pos = 0; pos < length; pos += chunk) {
              reads.add(in.readFullyAsync(pos, all, pos, Math.min(chunk, length - pos)));
            }
            for (CompletableFuture<Void> f : reads) {
              try {
                f.get();
              } catch (InterruptedException e) {
                throw new AssertionError(e);
              } catch (ExecutionException e) {
                if (e.getCause() instanceof IOException io) {
                  throw io;
                }
                throw new AssertionError(e.getCause());
              }
            }
            return new Object[] {0, all};
          }
          case FOOTER: {
            // As a Parquet reader does: the last 8 bytes, then the footer before them.
            byte[] tail = new byte[8];
            in.readFully(length - 8, tail, 0, 8);
            int footer = Math.min(length, 40_000);
            byte[] b = new byte[footer];
            in.readFully(length - footer, b, 0, footer);
            return new Object[] {length - footer, b};
          }
          default:
            throw new AssertionError(this);
        }
      }
    }
  }

  /** The read succeeds with the bytes of {@code expected}. */
  static void assertReads(Slipstream client, String key, ReadPath path, byte[] expected) throws IOException {
    Object[] r = path.read(client, key);
    int offset = (Integer) r[0];
    byte[] got = (byte[]) r[1];
    assertThat(Arrays.equals(got, 0, got.length, expected, offset, offset + got.length))
        .as("%s read of %s: the object's bytes", path, key).isTrue();
  }

  /** The read fails with {@code type}, its message naming the object and containing {@code what}. */
  static IOException assertFails(Slipstream client, String key, ReadPath path, Class<? extends IOException> type,
      String what) {
    try {
      path.read(client, key);
    } catch (IOException e) {
      assertThat(e).as("%s read of %s", path, key).isInstanceOf(type);
      assertThat(e.getMessage()).contains("s3://" + BUCKET + "/" + key).contains(what);
      return e;
    } catch (RuntimeException e) {
      throw new AssertionError(path + " read of " + key + ": untyped failure", e);
    }
    return fail(path + " read of " + key + " succeeded against a misbehaving server");
  }

  static Predicate<RequestInfo> getOf(String key) {
    return r -> r.isGet() && S3Wire.objectOf(r).equals(BUCKET + "/" + key);
  }

  static Predicate<RequestInfo> getNotFromZero(String key) {
    return getOf(key).and(r -> r.range() != null && !r.range().startsWith("bytes=0-"));
  }

  // ---- 1. a server that ignores Range --------------------------------------------------------

  /**
   * An object of one block (1 MiB here) whose block is read in parallel parts of at least 256 KiB, as an
   * object of 4 to 8 MiB is with the defaults (8 MiB blocks, parts of at least 2 MiB).
   */
  static final int PARTED = 1024 * 1024 - 12_345;

  /** A client whose blocks of 1 MiB are read in parts: see {@link #PARTED}. */
  static Slipstream partsClient(String... extra) {
    String[] parts = {"block.size", "1M", "fetch.part.min", "256K", "memory.max", "16M"};
    String[] all = Arrays.copyOf(parts, parts.length + extra.length);
    System.arraycopy(extra, 0, all, parts.length, extra.length);
    return client(all);
  }

  /** The ways a server ignores Range: the whole object chunked, or with its Content-Length. */
  static final List<Misbehaviour> IGNORING = List.of(Misbehaviour.IGNORE_RANGE, Misbehaviour.IGNORE_RANGE_WITH_LENGTH);

  static Stream<Misbehaviour> ignoringServers() {
    return IGNORING.stream();
  }

  /** Every read path against each way of ignoring Range. */
  static Stream<Arguments> ignoringServersAndReadPaths() {
    return IGNORING.stream().flatMap(m -> Arrays.stream(ReadPath.values()).map(p -> Arguments.of(m, p)));
  }

  @ParameterizedTest
  @MethodSource("ignoringServersAndReadPaths")
  void aServerThatIgnoresRangeIsAClearErrorNeverWrongBytes(Misbehaviour ignoring, ReadPath path) throws IOException {
    String key = "ignores-range-" + ignoring + "-" + path;
    server.put(BUCKET, key, big);
    server.when(getNotFromZero(key), ignoring);
    try (Slipstream client = client()) {
      assertFails(client, key, path, IOException.class, "ignores Range");
    }
  }

  @ParameterizedTest
  @MethodSource("ignoringServersAndReadPaths")
  void aServerThatIgnoresRangeOnEveryGetIsAClearError(Misbehaviour ignoring, ReadPath path) throws IOException {
    String key = "ignores-every-range-" + ignoring + "-" + path;
    server.put(BUCKET, key, big);
    server.when(getOf(key), ignoring);
    try (Slipstream client = client()) {
      assertFails(client, key, path, IOException.class, "answered 200 with the whole object");
    }
  }

  @ParameterizedTest
  @MethodSource("ignoringServersAndReadPaths")
  void anObjectOfOneBlockIsReadThroughAWholeObjectAnswer(Misbehaviour ignoring, ReadPath path) throws IOException {
    String key = "ignores-range-small-" + ignoring + "-" + path;
    server.put(BUCKET, key, small);
    server.when(getOf(key), ignoring);
    try (Slipstream client = client()) {
      assertReads(client, key, path, small);
    }
  }

  /**
   * The block of an object of one block read in parts: the first part, and a vectored or jump range from
   * byte 0, ask for a range that starts where the whole object does and ends before it. Each is read from
   * the whole-object answer (skip, take, stop), chunked or not; so is every other range.
   */
  @ParameterizedTest
  @MethodSource("ignoringServersAndReadPaths")
  void anObjectOfOneBlockReadInPartsIsReadRightThroughWholeObjectAnswers(Misbehaviour ignoring, ReadPath path)
      throws IOException {
    String key = "ignores-range-parted-" + ignoring + "-" + path;
    byte[] data = bytes(PARTED, 4);
    server.put(BUCKET, key, data);
    server.when(getOf(key), ignoring);
    try (Slipstream client = partsClient()) {
      assertReads(client, key, path, data);
      if (path == ReadPath.SEQUENTIAL) {
        assertThat(client.statistics().get(Counter.BLOCKS_IN_PARTS)).as("the block read in parts").isPositive();
      }
      if (path != ReadPath.FOOTER) {
        assertThat(server.requests()).filteredOn(getOf(key)).as("a range from byte 0 that ends before the object")
            .anySatisfy(r -> assertThat(r.range()).startsWith("bytes=0-").isNotEqualTo("bytes=0-" + (PARTED - 1)));
      }
    }
  }

  /** Open-ahead (a hint, and a declared order) fetches a first block that a whole-object answer brings. */
  @ParameterizedTest
  @MethodSource("ignoringServers")
  void openAheadOfAnObjectOfOneBlockIsReadThroughAWholeObjectAnswer(Misbehaviour ignoring) throws Exception {
    List<ObjectRef> refs = new ArrayList<>();
    List<byte[]> data = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String key = "ignores-range-ahead-" + ignoring + "-" + i;
      data.add(bytes(PARTED - i * 1000, 10 + i));
      server.put(BUCKET, key, data.get(i));
      refs.add(ObjectRef.of("s3://" + BUCKET + "/" + key, data.get(i).length, etagOf(key)));
    }
    server.when(r -> r.isGet() && S3Wire.objectOf(r).startsWith(BUCKET + "/ignores-range-ahead-"), ignoring);
    try (Slipstream client = partsClient()) {
      client.hintNext(List.of(refs.get(0)));
      try (SlipstreamInputStream in = client.open(refs.get(0).location(), refs.get(0).openOptions())) {
        assertThat(in.readAllBytes()).isEqualTo(data.get(0));
      }
      try (ReadingOrder order = client.readingInOrder(refs.subList(1, 3))) {
        for (int i = 1; i < 3; i++) {
          try (SlipstreamInputStream in = client.open(refs.get(i).location(), refs.get(i).openOptions())) {
            assertThat(in.readAllBytes()).as("file %d", i).isEqualTo(data.get(i));
          }
        }
      }
      assertThat(client.statistics().get(Counter.OPEN_AHEAD_USED)).as("every block fetched ahead used").isEqualTo(3);
    }
  }

  /** The access check of an open served from the disk cache is a 1-byte GET: the whole object answers it. */
  @ParameterizedTest
  @MethodSource("ignoringServers")
  void theAccessCheckOfCachedBytesIsAnsweredByAWholeObjectAnswer(Misbehaviour ignoring, @TempDir Path cacheDir)
      throws IOException {
    String key = "ignores-range-cached-" + ignoring;
    byte[] data = bytes(PARTED, 5);
    server.put(BUCKET, key, data);
    String[] cache = {"cache.disk.mode", "all", "cache.disk.dir", cacheDir.toString()};
    try (Slipstream client = partsClient(cache)) {
      assertReads(client, key, ReadPath.SEQUENTIAL, data);
      Slipstream.awaitDiskCacheWrites(java.time.Duration.ofSeconds(10));
    }
    String etag = etagOf(key);
    server.reset();
    server.when(getOf(key), ignoring);
    // Opened with its length and ETag (no HEAD): S3 has not answered this open when the cache has the bytes.
    try (Slipstream client = partsClient(cache);
        SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
            OpenOptions.known(PARTED, etag))) {
      assertThat(in.readAllBytes()).isEqualTo(data);
      assertThat(client.statistics().get(Counter.DISK_CACHE_HITS)).as("served from the disk cache").isPositive();
    }
    assertThat(server.requests()).filteredOn(getOf(key)).extracting(RequestInfo::range)
        .as("the access check, the only GET").containsExactly("bytes=0-0");
  }

  /**
   * A range taken from a whole-object answer with a Content-Length ends the response there: the rest is
   * dropped with the connection, never drained to keep it (here the rest never comes: a drain would wait
   * for it, unwatched, for good).
   */
  @Test
  @Timeout(20) // the stall timeout is 60 s, and a drain is not watched at all
  void aRangeTakenFromAWholeObjectAnswerNeverWaitsForTheRest() throws IOException {
    String key = "ignores-range-then-stalls";
    byte[] data = bytes(PARTED, 6);
    server.put(BUCKET, key, data);
    server.when(getOf(key), Misbehaviour.IGNORE_RANGE_WITH_LENGTH);
    server.when(getOf(key), Misbehaviour.STALL_BODY); // half the object, then silence
    try (Slipstream client = partsClient("read.stall.timeout", "60s");
        SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
            OpenOptions.length(PARTED).withPolicy(ReadPolicy.RANDOM))) {
      byte[] b = new byte[100_000];
      in.readFully(0, b, 0, b.length);
      assertThat(b).isEqualTo(Arrays.copyOf(data, b.length));
    }
  }

  // ---- 2. a 206 for another range -------------------------------------------------------------

  @ParameterizedTest
  @EnumSource(ReadPath.class)
  void aResponseForAnotherRangeIsAClearError(ReadPath path) throws IOException {
    String key = "shifted-" + path;
    server.put(BUCKET, key, big);
    server.when(getNotFromZero(key), Misbehaviour.SHIFT_RANGE);
    try (Slipstream client = client()) {
      assertFails(client, key, path, IOException.class, "another range than the one asked for");
    }
  }

  @Test
  void bytesThatFailedACheckNeverReachTheDiskCache(@TempDir Path cacheDir) throws IOException {
    String key = "shifted-cached";
    server.put(BUCKET, key, big);
    server.when(getNotFromZero(key), Misbehaviour.SHIFT_RANGE);
    String[] cache = {"cache.disk.mode", "all", "cache.disk.dir", cacheDir.toString()};
    try (Slipstream client = client(cache)) {
      assertFails(client, key, ReadPath.SEQUENTIAL, IOException.class, "another range");
      Slipstream.awaitDiskCacheWrites(java.time.Duration.ofSeconds(10));
    }
    server.reset();
    try (Slipstream client = client(cache)) {
      for (ReadPath path : ReadPath.values()) {
        assertReads(client, key, path, big);
      }
    }
  }

  // ---- 3. no ETag: Last-Modified names the version --------------------------------------------

  @ParameterizedTest
  @EnumSource(ReadPath.class)
  void withoutETagsAnUnchangedObjectReadsRight(ReadPath path) throws IOException {
    String key = "no-etag-" + path;
    server.put(BUCKET, key, big);
    server.always(Misbehaviour.NO_ETAG);
    try (Slipstream client = client()) {
      assertReads(client, key, path, big);
    }
  }

  @ParameterizedTest
  @EnumSource(ReadPath.class)
  void withoutETagsAReplacedObjectIsAChangeNeverAMix(ReadPath path) throws IOException {
    replacedMidRead("no-etag-replaced-" + path, path, false);
  }

  @ParameterizedTest
  @EnumSource(ReadPath.class)
  void withoutETagsOrConditionsAReplacedObjectIsAChangeNeverAMix(ReadPath path) throws IOException {
    // A gateway that ignores If-Unmodified-Since: Last-Modified compared on every response catches it.
    replacedMidRead("no-etag-no-conditions-" + path, path, true);
  }

  private void replacedMidRead(String key, ReadPath path, boolean ignoreConditions) throws IOException {
    server.put(BUCKET, key, big);
    server.always(Misbehaviour.NO_ETAG);
    if (ignoreConditions) {
      server.always(Misbehaviour.IGNORE_CONDITIONS);
    }
    server.replaceAfterGets(BUCKET, key, 1, bigV2);
    try (Slipstream client = client("prefetch.blocks", "1")) {
      Object[] r;
      try {
        r = path.read(client, key);
      } catch (ObjectChangedException e) {
        assertThat(e.getMessage()).contains("s3://" + BUCKET + "/" + key);
        return;
      }
      // Success is allowed only with every byte of one version.
      int offset = (Integer) r[0];
      byte[] got = (byte[]) r[1];
      boolean v1 = Arrays.equals(got, 0, got.length, big, offset, offset + got.length);
      boolean v2 = Arrays.equals(got, 0, got.length, bigV2, offset, offset + got.length);
      assertThat(v1 || v2).as("%s read of %s: bytes of one version", path, key).isTrue();
      if (path != ReadPath.FOOTER) {
        fail(path + " read a whole object replaced after its first GET without noticing");
      }
    }
  }

  // ---- 4. quoted and bare ETags are one ETag --------------------------------------------------

  @ParameterizedTest
  @EnumSource(ReadPath.class)
  void aBareETagOnGetIsTheQuotedOneOfHead(ReadPath path) throws IOException {
    String key = "bare-etag-" + path;
    server.put(BUCKET, key, big);
    server.always(Misbehaviour.BARE_ETAG);
    try (Slipstream client = client()) {
      assertReads(client, key, path, big);
    }
  }

  @Test
  void anETagGivenBareOrQuotedAtOpenMatchesTheServers() throws IOException {
    String key = "etag-spelling";
    server.put(BUCKET, key, big);
    String quoted;
    try (Slipstream client = client(); SlipstreamInputStream in = client.open("s3://" + BUCKET + "/" + key)) {
      quoted = in.etag();
    }
    assertThat(quoted).startsWith("\"").endsWith("\"");
    String bare = quoted.substring(1, quoted.length() - 1);
    server.always(Misbehaviour.BARE_ETAG);
    for (String given : List.of(quoted, bare)) {
      try (Slipstream client = client();
          SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
              OpenOptions.known(SIZE, given))) {
        assertThat(in.readAllBytes()).isEqualTo(big);
        assertThat(in.etag()).isEqualTo(quoted);
      }
    }
  }

  // ---- 5. HEAD without Content-Length ---------------------------------------------------------

  @ParameterizedTest
  @EnumSource(ReadPath.class)
  void aHeadWithoutContentLengthLearnsTheLengthFromARangedGet(ReadPath path) throws IOException {
    String key = "head-no-length-" + path;
    server.put(BUCKET, key, big);
    server.always(Misbehaviour.NO_CONTENT_LENGTH);
    try (Slipstream client = client()) {
      assertReads(client, key, path, big);
    }
  }

  @Test
  void aHeadWithoutContentLengthOnAServerWithoutRangesNamesTheMissingHeader() throws IOException {
    String key = "head-no-length-no-range";
    server.put(BUCKET, key, big);
    server.always(Misbehaviour.NO_CONTENT_LENGTH);
    server.always(Misbehaviour.IGNORE_RANGE);
    try (Slipstream client = client()) {
      assertFails(client, key, ReadPath.SEQUENTIAL, IOException.class, "no Content-Length");
    }
  }

  // ---- 6. the first GET of a sequential open of unknown length, in place of the HEAD ---------------

  /** Opens {@code key} as a sequential read of unknown length and reads it whole. */
  static byte[] readSequentialOfUnknownLength(Slipstream client, String key, long[] heads) throws IOException {
    try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
        OpenOptions.NONE.withPolicy(ReadPolicy.SEQUENTIAL))) {
      byte[] all = in.readAllBytes();
      heads[0] = in.statistics().get(Counter.HEAD_REQUESTS);
      return all;
    }
  }

  @ParameterizedTest
  @EnumSource(value = Misbehaviour.class, names = {"NO_ETAG", "BARE_ETAG", "NO_CONTENT_LENGTH"})
  void aSequentialOpenOfUnknownLengthLearnsItFromItsFirstGet(Misbehaviour m) throws IOException {
    server.put(BUCKET, "first-get-big-" + m, big);
    server.put(BUCKET, "first-get-small-" + m, small);
    server.always(m);
    try (Slipstream client = client()) {
      long[] heads = {-1};
      assertThat(readSequentialOfUnknownLength(client, "first-get-big-" + m, heads)).isEqualTo(big);
      assertThat(heads[0]).as("no HEAD").isZero();
      assertThat(readSequentialOfUnknownLength(client, "first-get-small-" + m, heads)).isEqualTo(small);
      assertThat(heads[0]).as("no HEAD").isZero();
    }
  }

  @Test
  void aFirstGetAnsweredForAnotherRangeIsAClearError() throws IOException {
    String key = "first-get-shifted";
    server.put(BUCKET, key, big);
    server.when(getOf(key).and(r -> r.range() != null && r.range().startsWith("bytes=0-")), Misbehaviour.SHIFT_RANGE);
    try (Slipstream client = client()) {
      assertThatThrownBy(() -> readSequentialOfUnknownLength(client, key, new long[1]))
          .isInstanceOf(IOException.class).hasMessageContaining("s3://" + BUCKET + "/" + key)
          .hasMessageContaining("not the first bytes with the object's length");
    }
  }

  /** A chunked 200 states no length: the HEAD does. A 200's Content-Length is the object's length. */
  @ParameterizedTest
  @MethodSource("ignoringServers")
  void aFirstGetAnsweredWithTheWholeObjectNeedsAHeadOnlyWhenChunked(Misbehaviour ignoring) throws IOException {
    String key = "first-get-" + ignoring;
    server.put(BUCKET, key, small);
    server.when(getOf(key), ignoring);
    boolean chunked = ignoring == Misbehaviour.IGNORE_RANGE;
    try (Slipstream client = client()) {
      long[] heads = {-1};
      assertThat(readSequentialOfUnknownLength(client, key, heads)).isEqualTo(small);
      assertThat(heads[0]).as("HEADs").isEqualTo(chunked ? 1 : 0);
    }
    assertThat(server.requests()).filteredOn(getOf(key)).as("GETs: the first one, and the block's after a HEAD")
        .hasSize(chunked ? 2 : 1);
  }

  @Test
  void aWellBehavedServerReadsRightOnEveryPath() throws IOException {
    String key = "well-behaved";
    server.put(BUCKET, key, big);
    try (Slipstream client = client()) {
      for (ReadPath path : ReadPath.values()) {
        assertReads(client, key, path, big);
      }
    }
  }


  // ---- the access check on a server that ignores If-Match -------------------------------------

  /**
   * The object replaced, its old version cached, and a server that ignores {@code If-Match}: the access
   * check's GET is answered with the new version. That answer is no answer for the old version (its
   * ETag is checked), so no read of the open, the first or any later one, gets the cached old bytes.
   */
  @Test
  void anAnswerForAnotherVersionNeverLetsCachedBytesThrough() throws Exception {
    String key = "cached-then-replaced";
    server.put(BUCKET, key, big);
    try (Slipstream client = client("access.ttl", "0")) {
      String oldEtag;
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/" + key)) {
        assertThat(in.readAllBytes()).isEqualTo(big); // now in the memory cache
        oldEtag = in.etag();
      }
      server.put(BUCKET, key, bigV2);
      server.always(Misbehaviour.IGNORE_CONDITIONS);
      try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
          OpenOptions.known(SIZE, oldEtag))) {
        for (int attempt = 0; attempt < 3; attempt++) {
          byte[] b = new byte[BLOCK];
          try {
            in.readFully(0, b, 0, b.length);
            fail("read " + attempt + " of a replaced object returned bytes of the version opened");
          } catch (ObjectChangedException expected) {
            assertThat(b).as("read %d: nothing copied to the caller", attempt).containsOnly(0);
          }
        }
      }
    }
  }

  // ---- open-ahead: the same checks on a block fetched before the open ---------------------------

  private static String etagOf(String key) throws IOException {
    try (Slipstream client = client(); SlipstreamInputStream in = client.open("s3://" + BUCKET + "/" + key)) {
      return in.etag();
    }
  }

  @Test
  void aBlockFetchedAheadFromAMisbehavingServerIsNeverServed() throws Exception {
    String key = "ahead-shifted";
    byte[] small = java.util.Arrays.copyOf(big, 200_000); // open-ahead prepares objects of one block
    server.put(BUCKET, key, small);
    String etag = etagOf(key);
    server.when(getOf(key), Misbehaviour.SHIFT_RANGE);
    ObjectRef ref = ObjectRef.of("s3://" + BUCKET + "/" + key, small.length, etag);
    try (Slipstream client = client()) {
      client.hintNext(List.of(ref));
      assertThat(client.statistics().get(Counter.OPEN_AHEAD_STARTED)).isOne();
      try (SlipstreamInputStream in = client.open(ref.location(), ref.openOptions())) {
        org.assertj.core.api.Assertions.assertThatThrownBy(in::readAllBytes).isInstanceOf(IOException.class)
            .hasMessageContaining("s3://" + BUCKET + "/" + key).hasMessageContaining("another range");
      }
    }
  }

  @Test
  void aBlockFetchedAheadWithABareETagIsServedForTheQuotedOne() throws Exception {
    String key = "ahead-bare";
    byte[] small = java.util.Arrays.copyOf(big, 100_000); // open-ahead prepares objects of one block
    server.put(BUCKET, key, small);
    String quoted = etagOf(key);
    server.always(Misbehaviour.BARE_ETAG);
    ObjectRef ref = ObjectRef.of("s3://" + BUCKET + "/" + key, small.length, quoted.substring(1, quoted.length() - 1));
    try (Slipstream client = client()) {
      client.hintNext(List.of(ref));
      try (SlipstreamInputStream in = client.open(ref.location(), ref.openOptions())) {
        assertThat(in.readAllBytes()).isEqualTo(small);
      }
      assertThat(client.statistics().get(Counter.OPEN_AHEAD_USED)).as("the block fetched ahead was used").isOne();
    }
  }

  // ---- 9. an interrupt ends a read whose GET stalls, whenever it comes ------------------------

  /**
   * The client Slipstream builds for its GETs has no socket timeout (the watchdog ends a stalled body): a
   * server that never answers a GET must still fail the read, each attempt bounded by the connect and stall
   * timeouts, and retried as a timeout.
   */
  @ParameterizedTest
  @EnumSource(value = ReadPath.class, names = {"SEQUENTIAL", "POSITIONAL"})
  @Timeout(30)
  void aGetNeverAnsweredFailsTheReadAfterTheConnectAndStallTimeoutsOnEachAttempt(ReadPath path) throws Exception {
    String key = "silent";
    server.put(BUCKET, key, big);
    server.when(getOf(key), Misbehaviour.STALL_HEAD);
    try (Slipstream client = client("read.stall.timeout", "300ms", "connect.timeout", "200ms", "retry.max", "2")) {
      assertFails(client, key, path, IOException.class, "no response within the connect and stall timeouts");
      assertThat(server.requests()).filteredOn(getOf(key)).as("a first attempt and two retries at least")
          .hasSizeGreaterThanOrEqualTo(3);
    }
  }

  @Test
  @Timeout(20) // the stall timeout is 60 s: only a cancelled request ends in time
  void anInterruptEndsASmallReadWhoseGetStalledPromptly() throws Exception {
    String key = "stalls";
    server.put(BUCKET, key, big);
    server.when(getOf(key), Misbehaviour.STALL_BODY);
    try (Slipstream client = client("read.stall.timeout", "60s");
        SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
            OpenOptions.NONE.withPolicy(ReadPolicy.RANDOM))) {
      Thread reader = startSmallRead(in);
      while (server.stalledNow() == 0) {
        Thread.sleep(10);
      }
      reader.interrupt();
      assertEndsInterrupted(reader, key);
    }
  }

  /**
   * The S3 client, interrupted while it waits for a response's head, drains the body before it gives up:
   * a stalled body held such a reader for the whole stall timeout. Interrupts here come at several moments
   * from the start of the request on, most of them before the head arrives.
   */
  @Test
  @Timeout(30) // the stall timeout is 60 s: one reader held until it would fail the test
  void anInterruptBeforeTheResponseArrivedEndsTheReadPromptly() throws Exception {
    String key = "stalls-early";
    server.put(BUCKET, key, big);
    server.when(getOf(key), Misbehaviour.STALL_BODY);
    for (int delayMillis : new int[] {0, 1, 2, 5, 10, 15, 20, 25, 30, 40}) {
      try (Slipstream client = client("read.stall.timeout", "60s");
          SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
              OpenOptions.NONE.withPolicy(ReadPolicy.RANDOM))) {
        Thread reader = startSmallRead(in);
        Thread.sleep(delayMillis);
        reader.interrupt();
        assertEndsInterrupted(reader, key);
      }
    }
  }

  /** Starts a small read after a jump (one GET) on a thread of its own; its outcome is the thread's. */
  private static Thread startSmallRead(SlipstreamInputStream in) {
    Thread reader = new Thread(() -> {
      try {
        in.readFully(2 * BLOCK + 1000, new byte[4000], 0, 4000);
        outcomes.put(Thread.currentThread(), new Outcome(null, Thread.currentThread().isInterrupted()));
      } catch (Throwable t) {
        outcomes.put(Thread.currentThread(), new Outcome(t, Thread.currentThread().isInterrupted()));
      }
    }, "stalled-reader");
    reader.start();
    return reader;
  }

  private record Outcome(Throwable failure, boolean stillInterrupted) {
  }

  private static final java.util.Map<Thread, Outcome> outcomes = new java.util.concurrent.ConcurrentHashMap<>();

  private static void assertEndsInterrupted(Thread reader, String key) throws InterruptedException {
    reader.join();
    Outcome o = outcomes.remove(reader);
    assertThat(o.failure()).isInstanceOf(java.io.InterruptedIOException.class);
    assertThat(o.failure().getMessage()).contains("s3://" + BUCKET + "/" + key);
    assertThat(o.stillInterrupted()).as("the interrupt status is kept").isTrue();
  }

  @Test
  @Timeout(20) // the stall timeout is 60 s: only cancelled requests end in time
  void anInterruptDuringALargeColumnarRangeEndsTheReadPromptly() throws Exception {
    String key = "stalls-parts";
    server.put(BUCKET, key, big);
    server.when(getOf(key), Misbehaviour.STALL_BODY);
    try (Slipstream client = client("read.stall.timeout", "60s");
        SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
            OpenOptions.length(SIZE).withPolicy(ReadPolicy.RANDOM))) {
      CompletableFuture<Throwable> outcome = new CompletableFuture<>();
      Thread reader = new Thread(() -> {
        try {
          // Over 1 MiB: a range read in parallel parts on the fetch executor, awaited on this thread.
          in.readFully(0, new byte[SIZE - 1000], 0, SIZE - 1000);
          outcome.complete(null);
        } catch (Throwable t) {
          outcome.complete(t);
        }
      }, "stalled-range-reader");
      reader.start();
      while (server.stalledNow() < 2) {
        Thread.sleep(10);
      }
      reader.interrupt();
      assertThat(outcome.get()).isInstanceOf(java.io.InterruptedIOException.class)
          .hasMessageContaining("s3://" + BUCKET + "/" + key);
      reader.join();
    }
  }

  // ---- an interrupt ends the interrupted thread's reads only (issue 42, item 4) --------------

  /**
   * Two threads read large ranges of one stream at once (each in parallel parts on the fetch executor), and
   * every GET stalls. One thread is interrupted: it ends with an InterruptedIOException, its interrupt
   * status kept; the other thread's parts go on, and once the server lets them go (cut mid-body, then
   * resumed) it gets every byte right. The stream is still open and reads on.
   */
  @Test
  @Timeout(30) // the stall timeout is 60 s
  void anInterruptEndsOnlyTheInterruptedThreadsReadsOfAStream() throws Exception {
    String key = "two-readers-one-interrupted";
    server.put(BUCKET, key, big);
    server.when(getOf(key), Misbehaviour.STALL_BODY);
    int len = SIZE - 1000; // over 1 MiB: two parts each
    try (Slipstream client = client("read.stall.timeout", "60s");
        SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
            OpenOptions.length(SIZE).withPolicy(ReadPolicy.RANDOM))) {
      byte[] other = new byte[len];
      CompletableFuture<Throwable> interrupted = new CompletableFuture<>();
      CompletableFuture<Throwable> notInterrupted = new CompletableFuture<>();
      Thread a = new Thread(() -> {
        try {
          in.readFully(0, new byte[len], 0, len);
          interrupted.complete(null);
        } catch (Throwable t) {
          interrupted.complete(t);
        }
        outcomes.put(Thread.currentThread(), new Outcome(interrupted.join(), Thread.currentThread().isInterrupted()));
      }, "reader-interrupted");
      Thread b = new Thread(() -> {
        try {
          in.readFully(1000, other, 0, len);
          notInterrupted.complete(null);
        } catch (Throwable t) {
          notInterrupted.complete(t);
        }
      }, "reader-not-interrupted");
      a.start();
      b.start();
      while (server.stalledNow() < 4) { // both reads' parts are in flight
        Thread.sleep(10);
      }
      a.interrupt();
      assertEndsInterrupted(a, key);
      server.reset(); // the other reader's stalled responses are cut; its retries are answered in full

      assertThat(notInterrupted.get()).as("the reader not interrupted").isNull();
      assertThat(Arrays.equals(other, 0, len, big, 1000, 1000 + len)).as("its bytes").isTrue();
      byte[] again = new byte[len];
      in.readFully(500, again, 0, len);
      assertThat(Arrays.equals(again, 0, len, big, 500, 500 + len)).as("the stream reads on").isTrue();
    }
  }

  // ---- a response refused for its length names no version (issue 42, item 8) -----------------

  /**
   * A stream opened with a length that is not the object's, and no ETag, against a server that sends none:
   * the response whose length is refused must not pin its Last-Modified as the stream's version, so the
   * read asked again is no conditional request on that version: it fails again for the length.
   */
  @Test
  void aResponseRefusedForItsLengthPinsNoVersionWhenTheServerSendsNoEtag() throws IOException {
    String key = "wrong-length-no-etag";
    server.put(BUCKET, key, big);
    server.always(Misbehaviour.NO_ETAG);
    try (Slipstream client = client();
        SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
            OpenOptions.length(SIZE - 1000))) {
      for (int attempt = 0; attempt < 2; attempt++) {
        assertThatLengthIsRefused(in, key);
      }
      assertThat(in.etag()).isNull();
    }
    List<RequestInfo> gets = server.requests().stream().filter(getOf(key)).toList();
    assertThat(gets).hasSizeGreaterThanOrEqualTo(2);
    assertThat(gets).as("no GET is conditional on the version of a refused response")
        .allSatisfy(r -> assertThat(r.header("if-unmodified-since")).isNull());
  }

  /**
   * The same with a server that sends ETags: the refused response must not pin its ETag as the stream's
   * version, since the tiers name a stream's blocks by its pinned ETag, and its access check takes a
   * standing answer of the client for that ETag. The read asked again, after another stream of the client
   * read that version, is refused for the length again and served from no cache.
   */
  @Test
  void aResponseRefusedForItsLengthNeverLetsTheTiersServeARetry() throws IOException {
    String key = "wrong-length-then-tiers";
    server.put(BUCKET, key, big);
    try (Slipstream client = client()) {
      try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/" + key),
          OpenOptions.length(SIZE - 1000))) {
        assertThatLengthIsRefused(in, key);
        assertThat(in.etag()).as("the refused response named no version of the stream").isNull();
        try (SlipstreamInputStream other = client.open("s3://" + BUCKET + "/" + key)) {
          assertThat(other.readAllBytes()).isEqualTo(big); // its blocks stay in the memory cache, its answer stands
        }
        assertThatLengthIsRefused(in, key);
      }
      assertThat(client.statistics().get(Counter.MEMORY_CACHE_HITS)).as("nothing served from memory").isZero();
    }
  }

  private static void assertThatLengthIsRefused(SlipstreamInputStream in, String key) {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> in.readFully(0, new byte[100], 0, 100))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("s3://" + BUCKET + "/" + key)
        .hasMessageContaining("length " + (SIZE - 1000)).hasMessageContaining("has " + SIZE + " bytes");
  }
}
