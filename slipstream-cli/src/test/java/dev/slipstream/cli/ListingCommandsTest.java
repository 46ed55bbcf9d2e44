/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.FaultKind;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code slipstream ls} and {@code du} against the embedded S3 server, 10,000 tiny objects under one
 * prefix, checked against a plain listing of the same server by the AWS SDK (which sees what the
 * commands see, the server's own directory marker keys included). Also: output leaves while the listing
 * is still under way, and each kind of failure has its message and exit status.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ListingCommandsTest {
  private static final String BUCKET = "ls-test";
  /**
   * 1,500 objects directly in big/ and 85 "subdirectories" of 100: 10,000 under big/, and 1,585 children
   * one level down, two pages. Every LIST costs the embedded server a walk of all the keys under the
   * prefix, so the whole of big/ is listed only a few times here.
   */
  private static final int FLAT = 1_500;
  private static final int SUBDIRS = 85;
  private static final int PER_SUBDIR = 100;
  private static final String ODD_KEY = "odd/say \"hi\" \\ é.txt";

  private static EmbeddedS3Server server;
  private static S3Client sdk;
  /** big/ as the AWS SDK lists it: key to size, in listing order. */
  private static Map<String, Long> bigBySdk;

  @BeforeAll
  static void startServer() throws Exception {
    server = EmbeddedS3Server.start();
    server.createBucket(BUCKET);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < FLAT; i++) {
      keys.add(String.format("big/k%05d", i));
    }
    for (int d = 0; d < SUBDIRS; d++) {
      for (int i = 0; i < PER_SUBDIR; i++) {
        keys.add(String.format("big/sub%02d/k%03d", d, i));
      }
    }
    keys.addAll(List.of("logs.csv", "logs/a.csv", "logs/2026/b.csv", "secret/plans.txt", ODD_KEY));
    ExecutorService pool = Executors.newFixedThreadPool(4); // two cores shared with the server's threads
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        String key = keys.get(i);
        byte[] body = new byte[i % 37]; // tiny, and not all alike
        done.add(pool.submit(() -> server.putObject(BUCKET, key, body)));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    sdk = S3Client.builder()
        .endpointOverride(server.endpoint())
        .region(Region.of(EmbeddedS3Server.REGION))
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(EmbeddedS3Server.ACCESS_KEY, EmbeddedS3Server.SECRET_KEY)))
        .httpClientBuilder(ApacheHttpClient.builder())
        .build();
    bigBySdk = sdkObjects("big/");
  }

  @AfterAll
  static void stopServer() {
    if (sdk != null) {
      sdk.close();
    }
    if (server != null) {
      server.close();
    }
  }

  record Run(int exitCode, String stdout, String stderr) {
    List<String> lines() {
      return stdout.isEmpty() ? List.of() : Arrays.asList(stdout.split("\n"));
    }
  }

  static Run run(OutputStream out, boolean terminal, String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = new SlipstreamCli(out, errStream, terminal).execute(args);
    }
    return new Run(code, out.toString(), err.toString(StandardCharsets.UTF_8));
  }

  static Run run(String... args) {
    return run(new Utf8Out(), false, args);
  }

  /** {@code command}, the options that point it at {@code endpoint}, then {@code rest}. */
  static String[] args(URI endpoint, String command, String... rest) {
    List<String> a = new ArrayList<>(List.of(command,
        "--endpoint", endpoint.toString(),
        "--region", EmbeddedS3Server.REGION,
        "--path-style",
        "-D", "access.key=" + EmbeddedS3Server.ACCESS_KEY,
        "-D", "secret.key=" + EmbeddedS3Server.SECRET_KEY));
    a.addAll(Arrays.asList(rest));
    return a.toArray(new String[0]);
  }

  static String[] args(String command, String... rest) {
    return args(server.endpoint(), command, rest);
  }

  /** Every object under {@code prefix} by the AWS SDK's own paginator: key to size, in listing order. */
  static Map<String, Long> sdkObjects(String prefix) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (S3Object o : sdk.listObjectsV2Paginator(r -> r.bucket(BUCKET).prefix(prefix)).contents()) {
      out.put(o.key(), o.size());
    }
    return out;
  }

  /** One level under {@code prefix} by the AWS SDK, delimiter "/": objects and common prefixes, in key order. */
  static List<String> sdkLevel(String prefix) {
    List<String> out = new ArrayList<>();
    for (ListObjectsV2Response page : sdk.listObjectsV2Paginator(r -> r.bucket(BUCKET).prefix(prefix).delimiter("/"))) {
      List<String> p = new ArrayList<>();
      page.contents().forEach(o -> p.add(o.key()));
      page.commonPrefixes().stream().map(CommonPrefix::prefix).forEach(p::add);
      p.sort(dev.slipstream.S3KeyOrder.COMPARATOR);
      out.addAll(p);
    }
    return out;
  }

  /**
   * Every object the SDK lists, with its size, in the same order. And the first line leaves before the
   * listing ends, the listing waiting for a stalled reader instead of running ahead into memory: while
   * the first write is held up, the LIST requests the server has seen stay below what the whole listing
   * needs. (The hold-up only gives a listing that read everything first, or without bound, the time to
   * show it; nothing is timed.)
   */
  @Test
  void recursiveJsonListsEveryObjectTheSdkListsAsThePagesArrive() throws IOException {
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 7)) {
      HeldOut out = new HeldOut(() -> shaper.requests("GET")); // ls sends LISTs and nothing else
      Run r = run(out, false, args(shaper.endpoint(), "ls", "-D", "list.parallelism=2", "-r", "--json",
          "s3://" + BUCKET + "/big/"));
      assertThat(r.exitCode()).as(r.stderr()).isZero();

      ObjectMapper json = new ObjectMapper();
      Map<String, Long> listed = new LinkedHashMap<>();
      for (String line : r.lines()) {
        JsonNode o = json.readTree(line);
        listed.put(o.get("key").asText(), o.get("size").asLong());
        assertThat(o.get("lastModified").asText()).endsWith("Z");
        assertThat(o.get("etag").asText()).doesNotContain("\"").isNotBlank();
      }
      assertThat(bigBySdk.keySet().stream().filter(k -> !k.endsWith("/"))).hasSize(FLAT + SUBDIRS * PER_SUBDIR);
      assertThat(listed).containsExactlyEntriesOf(bigBySdk); // same keys, same sizes, same order
      assertThat(r.lines()).hasSize(bigBySdk.size());

      long total = shaper.requests("GET");
      assertThat(total).isGreaterThanOrEqualTo(10); // 10,000 keys, 1,000 a page
      // two key ranges, each a couple of pages ahead at most, and one probe for the split
      assertThat(out.listsAtFirstWrite()).isPositive().isLessThan(total).isLessThanOrEqualTo(2 * 3 + 1);
    }
  }

  /** One level, merged in key order as the SDK's delimiter listing; a page asked for only as lines go out. */
  @Test
  void oneLevelShowsObjectsAndCommonPrefixesAsTheSdksDelimiterListing() {
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 8)) {
      HeldOut out = new HeldOut(() -> shaper.requests("GET"));
      Run r = run(out, false, args(shaper.endpoint(), "ls", "s3://" + BUCKET + "/big/"));
      assertThat(r.exitCode()).as(r.stderr()).isZero();
      List<String> names = r.lines().stream().map(l -> l.substring(l.lastIndexOf("  ") + 2)).toList();
      assertThat(names).isEqualTo(sdkLevel("big/")).contains("big/sub00/", "big/k00000");
      assertThat(r.lines()).filteredOn(l -> l.endsWith("big/sub03/")).singleElement()
          .satisfies(l -> assertThat(l).matches(" {20} +PRE  big/sub03/"));
      assertThat(r.lines()).filteredOn(l -> l.endsWith("  big/k00002")).singleElement()
          .satisfies(l -> assertThat(l).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +\\d+  big/k00002"));
      assertThat(shaper.requests("GET")).isEqualTo(2); // 1,585 children: two pages
      assertThat(out.listsAtFirstWrite()).isEqualTo(1);
    }
  }

  @Test
  void aPrefixWithoutSlashMatchesAsS3Does() {
    Run r = run(args("ls", "s3://" + BUCKET + "/logs"));
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(r.lines()).hasSize(2);
    assertThat(r.lines().get(0)).endsWith("  logs.csv");
    assertThat(r.lines().get(1)).endsWith("PRE  logs/");
  }

  @Test
  void longFormShowsTheETagTheSdkSees() {
    Run r = run(args("ls", "-l", "s3://" + BUCKET + "/logs/a.csv"));
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    String etag = sdk.headObject(h -> h.bucket(BUCKET).key("logs/a.csv")).eTag().replace("\"", "");
    assertThat(r.lines()).singleElement().satisfies(l -> assertThat(l).contains("  " + etag + " ").endsWith("  logs/a.csv"));
  }

  @Test
  void jsonEscapesAKeyWithQuotesAndBackslashes() throws IOException {
    Run r = run(args("ls", "--json", "s3://" + BUCKET + "/odd/"));
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    List<String> keys = new ArrayList<>();
    for (String line : r.lines()) {
      keys.add(new ObjectMapper().readTree(line).get("key").asText());
    }
    assertThat(keys).contains(ODD_KEY);
  }

  /** On big/sub0, ten of big/'s subdirectories: the breakdown below sums the whole of big/. */
  @Test
  void duSummaryIsOneLineWithTheTotalsOfTheSdkListing() {
    Run r = run(args("du", "-s", "s3://" + BUCKET + "/big/sub0"));
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    Map<String, Long> expected = sdkObjects("big/sub0");
    long bytes = expected.values().stream().mapToLong(Long::longValue).sum();
    assertThat(expected.size()).isGreaterThanOrEqualTo(10 * PER_SUBDIR);
    assertThat(r.lines()).singleElement().satisfies(l -> assertThat(l.trim().split(" +"))
        .containsExactly(Long.toString(bytes), Integer.toString(expected.size()), "s3://" + BUCKET + "/big/sub0"));
    assertThat(r.stderr()).matches("Listed " + expected.size() + " objects \\(.+\\) under s3://" + BUCKET
        + "/big/sub0 in \\d LISTs?, [0-9.]+ s\n");
  }

  /**
   * Per common prefix and in all, the sums of the SDK's listing of the 10,000 objects; the summary counts
   * the LIST requests the server saw.
   */
  @Test
  void duBreaksTheTotalDownByCommonPrefixAsTheSdkGroupsThem() {
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 6)) {
      Run r = run(args(shaper.endpoint(), "du", "s3://" + BUCKET + "/big/"));
      assertThat(r.exitCode()).as(r.stderr()).isZero();
      Map<String, long[]> expected = new LinkedHashMap<>();
      long bytes = 0;
      long objects = 0;
      for (Map.Entry<String, Long> e : bigBySdk.entrySet()) {
        bytes += e.getValue();
        objects++;
        int slash = e.getKey().indexOf('/', "big/".length());
        if (slash >= 0) {
          long[] t = expected.computeIfAbsent(e.getKey().substring(0, slash + 1), k -> new long[2]);
          t[0] += e.getValue();
          t[1]++;
        }
      }
      List<String> want = new ArrayList<>();
      expected.forEach((prefix, t) -> want.add(t[0] + " " + t[1] + " s3://" + BUCKET + "/" + prefix));
      want.add(bytes + " " + objects + " s3://" + BUCKET + "/big/");
      assertThat(r.lines().stream().map(l -> l.trim().replaceAll(" +", " ")).toList()).isEqualTo(want);
      assertThat(expected).hasSize(SUBDIRS);
      assertThat(objects).isGreaterThanOrEqualTo(10_000);
      // the summary: objects, LISTs sent (as the server counted them), seconds
      assertThat(r.stderr()).matches("Listed " + objects + " objects \\(.+\\) under s3://" + BUCKET + "/big/ in "
          + shaper.requests("GET") + " LISTs, [0-9.]+ s\n");
    }
  }

  @Test
  void duHumanSizesUseBinaryUnits() {
    Run r = run(args("du", "-s", "-h", "-q", "s3://" + BUCKET + "/big/sub00/"));
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(r.lines()).singleElement().satisfies(l -> assertThat(l).matches(" *[0-9.]+ KiB +\\d+  s3://.*/big/sub00/"));
    assertThat(r.stderr()).isEmpty();
  }

  @Test
  void duOnATerminalShowsProgressOnStderrAndKeepsStdoutClean() {
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 9)) {
      // a slow LIST, so that the listing lasts past the first progress tick
      shaper.onRequest(q -> q.isGet(), () -> {
        try {
          Thread.sleep(1_500);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      Run r = run(new Utf8Out(), true, args(shaper.endpoint(), "du", "s3://" + BUCKET + "/logs/"));
      assertThat(r.exitCode()).as(r.stderr()).isZero();
      assertThat(r.stderr()).contains("\rListing s3://" + BUCKET + "/logs/: 0 objects, 0 bytes, 1 LIST, 0:0")
          .containsPattern("\\r +\\rListed \\d+ objects \\(.+\\) under s3://" + BUCKET + "/logs/ in 1 LIST, ");
      assertThat(r.stdout()).doesNotContain("\r").doesNotContain("Listing");
      assertThat(r.lines()).hasSize(2).last().asString().endsWith("s3://" + BUCKET + "/logs/");
    }
  }

  // Failures: each kind with its message and exit status, for ls and du alike.

  @ParameterizedTest
  @ValueSource(strings = {"ls", "du"})
  void aMissingBucketExitsOneSayingSo(String command) {
    Run r = run(args(command, "s3://no-such-bucket/x/"));
    assertThat(r.exitCode()).isEqualTo(Errors.IO);
    assertThat(r.stderr()).startsWith("slipstream: ").contains("s3://no-such-bucket/x/").contains("no such bucket");
    SlipstreamCliTest.assertOneErrorLine(new SlipstreamCliTest.Run(r.exitCode(), new byte[0], r.stderr()));
    assertThat(r.stdout()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"ls", "du"})
  void aRefusedPrefixExitsOneSayingAccessDenied(String command) {
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 5)) {
      shaper.injectNext(FaultKind.STATUS_403, q -> q.isGet() && q.query() != null && q.query().contains("prefix=secret"));
      Run r = run(args(shaper.endpoint(), command, "s3://" + BUCKET + "/secret/"));
      assertThat(r.exitCode()).isEqualTo(Errors.IO);
      assertThat(r.stderr()).startsWith("slipstream: ").contains("s3://" + BUCKET + "/secret/")
          .contains("access denied (403 AccessDenied) on LIST")
          .doesNotContain(EmbeddedS3Server.SECRET_KEY);
      SlipstreamCliTest.assertOneErrorLine(new SlipstreamCliTest.Run(r.exitCode(), new byte[0], r.stderr()));
      assertThat(r.stdout()).isEmpty();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"ls", "du"})
  void aBadUriIsAUsageError(String command) {
    for (String bad : List.of("bucket/key", "http://bucket/key", "s3:///key", "s3://")) {
      Run r = run(args(command, bad));
      assertThat(r.exitCode()).as(bad).isEqualTo(Errors.USAGE);
      assertThat(r.stderr()).as(bad).startsWith("slipstream: not an S3 prefix (expected s3://bucket/prefix): '"
          + bad + "'");
      assertThat(r.stdout()).isEmpty();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"ls", "du"})
  void nothingUnderThePrefixExitsOne(String command) {
    Run r = run(args(command, "s3://" + BUCKET + "/no/such/prefix/"));
    assertThat(r.exitCode()).isEqualTo(Errors.IO);
    assertThat(r.stderr()).isEqualTo("slipstream: s3://" + BUCKET + "/no/such/prefix/: no such key or prefix\n");
  }

  /** {@code slipstream ls -r ... | head}: the reader goes away, the listing stops, no error is printed. */
  @Test
  void aClosedPipeEndsTheListingEarlyAndQuietly() {
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 4)) {
      OutputStream head = new OutputStream() {
        private int writes;

        @Override
        public void write(int b) throws IOException {
          write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          if (writes++ > 0) {
            throw new IOException("Broken pipe");
          }
        }
      };
      Run r = run(head, false, args(shaper.endpoint(), "ls", "-D", "list.parallelism=2", "-r",
          "s3://" + BUCKET + "/big/"));
      assertThat(r.exitCode()).isEqualTo(Errors.BROKEN_PIPE);
      assertThat(r.stderr()).isEmpty();
      // the whole listing takes more than 10 (10,000 keys); two ranges stop within a few pages
      assertThat(shaper.requests("GET")).isLessThan(10);
    }
  }

  @Test
  void anEmptyBucketListedWholeIsNoError() {
    server.createBucket("ls-empty");
    Run ls = run(args("ls", "s3://ls-empty"));
    assertThat(ls.exitCode()).as(ls.stderr()).isZero();
    assertThat(ls.stdout()).isEmpty();
    Run du = run(args("du", "-q", "s3://ls-empty/"));
    assertThat(du.exitCode()).as(du.stderr()).isZero();
    assertThat(du.lines()).singleElement()
        .satisfies(l -> assertThat(l.trim().split(" +")).containsExactly("0", "0", "s3://ls-empty/"));
  }

  @Test
  void theTopLevelHelpListsTheCommands() {
    Run r = run("--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.stdout()).containsPattern("\\n +ls +List the objects")
        .containsPattern("\\n +du +Sum the bytes and objects");
  }

  /**
   * Standard output that holds up its first write for a second, then notes how many LIST requests the
   * server had seen by then.
   */
  static final class HeldOut extends Utf8Out {
    private final LongSupplier lists;
    private final AtomicLong listsAtFirstWrite = new AtomicLong(-1);

    HeldOut(LongSupplier lists) {
      this.lists = lists;
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      if (listsAtFirstWrite.get() < 0) {
        try {
          Thread.sleep(1_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        listsAtFirstWrite.set(lists.getAsLong());
      }
      super.write(b, off, len);
    }

    long listsAtFirstWrite() {
      return listsAtFirstWrite.get();
    }
  }

  /** Standard output as UTF-8 text. */
  static class Utf8Out extends ByteArrayOutputStream {
    @Override
    public synchronized String toString() {
      return toString(StandardCharsets.UTF_8);
    }
  }
}
