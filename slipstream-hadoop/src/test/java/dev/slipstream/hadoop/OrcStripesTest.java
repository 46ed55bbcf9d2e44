/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.S3ASettings;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.hive.ql.exec.vector.BytesColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.LongColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.VectorizedRowBatch;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.RecordReader;
import org.apache.orc.TypeDescription;
import org.apache.orc.OrcProto;
import org.apache.orc.StripeInformation;
import org.apache.orc.Writer;
import org.apache.orc.impl.RecordReaderImpl;
import org.apache.orc.impl.ReaderImpl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ORC files of several stripes read by orc-core, as Spark's and Hive's readers read them, with 2 of 8
 * columns projected: Slipstream moves no more bytes than S3A classic (within a tenth) and fewer GETs,
 * judged by what the link carried, never by time. Before the ORC tail was the plan, such a file was read
 * whole. One test per compression of the file's tail and streams: the tail is read through each.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class OrcStripesTest {
  private static final String BUCKET = "orc-stripes";
  private static final int ROWS = 120_000;
  private static final int FILES = 3;
  private ForkedS3Server server;
  /** Requests and bytes are counted here, on the wire. */
  private LinkShaper shaper;

  @BeforeAll
  void start() {
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 11);
  }

  @AfterAll
  void stop() throws Exception {
    if (shaper != null) {
      shaper.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static final TypeDescription SCHEMA = TypeDescription.fromString(
      "struct<c1:bigint,c2:bigint,c3:bigint,c4:string,c5:bigint,c6:bigint,c7:string,c8:bigint>");

  /** Writes an ORC file of about 7 MB in stripes of about 1 MiB, locally, with the given compression. */
  static File writeOrc(CompressionKind compression, long seed) throws IOException {
    File f = Files.createTempFile("stripes", ".orc").toFile();
    f.delete();
    Configuration conf = new Configuration(false);
    Writer w = OrcFile.createWriter(new Path(f.toURI()), OrcFile.writerOptions(conf).setSchema(SCHEMA)
        .compress(compression).stripeSize(1 << 20).blockPadding(false).bufferSize(64 * 1024));
    VectorizedRowBatch batch = SCHEMA.createRowBatch();
    Random r = new Random(seed);
    for (int row = 0; row < ROWS; row++) {
      int i = batch.size++;
      for (int c = 0; c < 8; c++) {
        if (c == 3 || c == 6) {
          ((BytesColumnVector) batch.cols[c]).setVal(i, ("v" + r.nextInt(1 << 20)).getBytes(StandardCharsets.UTF_8));
        } else {
          ((LongColumnVector) batch.cols[c]).vector[i] = r.nextLong() >>> (c * 6);
        }
      }
      if (batch.size == batch.getMaxSize()) {
        w.addRowBatch(batch);
        batch.reset();
      }
    }
    if (batch.size > 0) {
      w.addRowBatch(batch);
    }
    w.close();
    return f;
  }

  private Configuration conf(String impl) {
    Configuration conf = new Configuration(false);
    conf.set("fs.s3a.impl", impl);
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    S3ASettings.forEndpoint(shaper.endpoint()).forEach(conf::set);
    conf.set("fs.s3a.input.stream.type", "classic");
    // A disk cache of this run's own: one left by an earlier run would serve the same files' bytes.
    conf.set("fs.slipstream.cache.disk.dir", "target/orc-stripes-cache-" + System.nanoTime());
    conf.set("fs.slipstream.memory.max", "64M");
    return conf;
  }

  /** What a read of the files moved: GETs and bytes on the wire, and the sum it computed. */
  private record Moved(long gets, long bytes, long sum) {}

  /** Reads columns c2 and c5 of each file through {@code fs}, as orc-core's reader does for a query of them. */
  private Moved read(FileSystem fs, Path[] files) throws IOException {
    long gets = shaper.requests("GET");
    long bytes = shaper.bytesSent();
    long sum = 0;
    for (Path p : files) {
      // As Hive does (its split carries the file's tail): a first reader reads the tail, and the record
      // reader is opened with it, reading no tail of its own: its first read is a stripe's footer.
      org.apache.orc.impl.OrcTail tail;
      try (Reader first = OrcFile.createReader(p, OrcFile.readerOptions(fs.getConf()).filesystem(fs))) {
        FileStatus st = fs.getFileStatus(p);
        tail = ReaderImpl.extractFileTail(first.getSerializedFileFooter(), st.getLen(), st.getModificationTime());
      }
      boolean[] include = new boolean[SCHEMA.getMaximumId() + 1];
      include[2] = true; // c2
      include[5] = true; // c5
      try (Reader reader = OrcFile.createReader(p, OrcFile.readerOptions(fs.getConf()).filesystem(fs).orcTail(tail));
          RecordReader rows = reader.rows(reader.options().include(include))) {
        VectorizedRowBatch batch = reader.getSchema().createRowBatch();
        while (rows.nextBatch(batch)) {
          for (int i = 0; i < batch.size; i++) {
            sum += ((LongColumnVector) batch.cols[1]).vector[i] + ((LongColumnVector) batch.cols[4]).vector[i];
          }
        }
      }
    }
    return new Moved(shaper.requests("GET") - gets, shaper.bytesSent() - bytes, sum);
  }

  /**
   * The bytes a reader of c2 and c5 of {@code p} needs: their streams in every stripe, every stripe's
   * footer, and the file's tail (footer, metadata, PostScript).
   */
  private static long projectionBytes(FileSystem fs, Path p) throws IOException {
    try (Reader r = OrcFile.createReader(p, OrcFile.readerOptions(fs.getConf()).filesystem(fs));
        RecordReaderImpl rows = (RecordReaderImpl) r.rows()) {
      assertThat(r.getStripes()).as("stripes of %s", p).hasSizeGreaterThanOrEqualTo(4);
      long bytes = fs.getFileStatus(p).getLen() - r.getContentLength();
      for (StripeInformation s : r.getStripes()) {
        bytes += s.getFooterLength();
        for (OrcProto.Stream stream : rows.readStripeFooter(s).getStreamsList()) {
          if ((stream.getColumn() == 2 || stream.getColumn() == 5) && stream.getKind() != OrcProto.Stream.Kind.ROW_INDEX
              && stream.getKind() != OrcProto.Stream.Kind.BLOOM_FILTER_UTF8) {
            bytes += stream.getLength();
          }
        }
      }
      return bytes;
    }
  }

  @ParameterizedTest
  @EnumSource(value = CompressionKind.class, names = {"NONE", "ZLIB", "SNAPPY"})
  void aProjectionOfAFileOfSeveralStripesMovesClassicsBytesInFewerGets(CompressionKind compression) throws Exception {
    Path[] files = new Path[FILES];
    long fileBytes = 0;
    long needed = 0;
    Configuration plain = conf(S3AFileSystem.class.getName());
    try (FileSystem writer = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), plain)) {
      for (int i = 0; i < FILES; i++) {
        File local = writeOrc(compression, i);
        files[i] = new Path("s3a://" + BUCKET + "/" + compression + "/part-" + i + ".orc");
        writer.copyFromLocalFile(true, true, new Path(local.toURI()), files[i]);
        fileBytes += writer.getFileStatus(files[i]).getLen();
      }
      for (Path p : files) {
        needed += projectionBytes(writer, p);
      }
    }
    Moved classic;
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), plain)) {
      classic = read(fs, files);
    }
    Moved slipstream;
    try (SlipstreamS3AFileSystem fs = (SlipstreamS3AFileSystem) FileSystem.newInstance(
        URI.create("s3a://" + BUCKET + "/"), conf(SlipstreamS3AFileSystem.class.getName()))) {
      slipstream = read(fs, files);
      var stats = fs.getSlipstreamStatistics();
      System.out.printf("%s: files %,d B, the projection's streams and footers %,d B; classic %d GETs, %,d B; Slipstream %d GETs, %,d B; tails parsed %d, plans"
              + " reused %d, sequential switches %d, stripe footers fetched %d, stripe bytes ahead %,d (unread %,d)%n",
          compression, fileBytes, needed, classic.gets(), classic.bytes(), slipstream.gets(), slipstream.bytes(),
          stats.get(Counter.ORC_TAILS_PARSED), stats.get(Counter.ORC_PLANS_REUSED), stats.get(Counter.SEQUENTIAL_SWITCHES),
          stats.get(Counter.ORC_STRIPE_FOOTERS_FETCHED), stats.get(Counter.ORC_STRIPE_AHEAD_BYTES),
          stats.get(Counter.ORC_STRIPE_AHEAD_BYTES_UNREAD));
    }
    assertThat(slipstream.sum()).as("the answer").isEqualTo(classic.sum());
    assertThat(slipstream.bytes()).as("bytes moved, against classic's %s", classic.bytes())
        .isLessThanOrEqualTo(classic.bytes() * 11 / 10);
    assertThat(slipstream.bytes()).as("bytes moved, against the %s the projection needs", needed)
        .isLessThanOrEqualTo(needed * 3 / 2);
    assertThat(slipstream.gets()).as("GETs, against classic's %s", classic.gets()).isLessThan(classic.gets());
  }

  /**
   * orc-core reads a stripe in two round trips, one after the other: its footer, then its columns' streams
   * planned from it. Slipstream fetches every stripe footer at the first one's read, at once: by the time
   * the reader reads the second stripe's streams, every footer has been asked for (the last one, in the
   * tail the first reader read, perhaps from the memory cache: then with no request at all), and each
   * stripe after the first costs one request, its streams.
   */
  @Test
  void theStripeFootersComeInOneWaveAtTheFirstStripesFooter() throws Exception {
    Configuration plain = conf(S3AFileSystem.class.getName());
    Path p = new Path("s3a://" + BUCKET + "/wave/part-0.orc");
    List<StripeInformation> stripes;
    try (FileSystem writer = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), plain)) {
      writer.copyFromLocalFile(true, true, new Path(writeOrc(CompressionKind.SNAPPY, 7).toURI()), p);
      try (Reader r = OrcFile.createReader(p, OrcFile.readerOptions(plain).filesystem(writer))) {
        stripes = r.getStripes();
      }
    }
    assertThat(stripes).hasSizeGreaterThanOrEqualTo(4);
    shaper.clearRequestLog();
    try (SlipstreamS3AFileSystem fs = (SlipstreamS3AFileSystem) FileSystem.newInstance(
        URI.create("s3a://" + BUCKET + "/"), conf(SlipstreamS3AFileSystem.class.getName()))) {
      read(fs, new Path[] {p});
    }
    List<long[]> gets = shaper.requestLog().stream()
        .filter(r -> r.isGet() && r.path().endsWith("/wave/part-0.orc") && r.range() != null)
        .map(r -> {
          String[] ends = r.range().substring("bytes=".length()).split("-");
          return new long[] {Long.parseLong(ends[0]), Long.parseLong(ends[1]) + 1};
        }).toList();
    System.out.printf("one file of %d stripes read by orc-core: %d GETs%n", stripes.size(), gets.size());
    gets.forEach(g -> System.out.printf("  %,d-%,d (%,d B)%n", g[0], g[1], g[1] - g[0]));
    StripeInformation second = stripes.get(1);
    long secondData = second.getOffset() + second.getIndexLength();
    long secondFooter = secondData + second.getDataLength();
    int firstOfSecondStripe = 0;
    while (firstOfSecondStripe < gets.size()
        && !(gets.get(firstOfSecondStripe)[0] < secondFooter && gets.get(firstOfSecondStripe)[1] > second.getOffset())) {
      firstOfSecondStripe++;
    }
    List<long[]> before = gets.subList(0, firstOfSecondStripe);
    for (int i = 0; i < stripes.size(); i++) {
      StripeInformation s = stripes.get(i);
      long start = s.getOffset() + s.getIndexLength() + s.getDataLength();
      long end = start + s.getFooterLength();
      boolean last = i == stripes.size() - 1;
      assertThat(before.stream().anyMatch(g -> g[0] <= start && end <= g[1])
          || last && gets.stream().noneMatch(g -> g[0] < end && start < g[1]))
          .as("stripe %d's footer fetched before the second stripe's streams", i).isTrue();
    }
    // After the first reader's tail, every footer fetched once; the last one not again: it lies in that
    // tail, which the client keeps.
    List<long[]> afterTail = gets.subList(1, gets.size());
    for (int i = 0; i < stripes.size(); i++) {
      StripeInformation s = stripes.get(i);
      long start = s.getOffset() + s.getIndexLength() + s.getDataLength();
      long end = start + s.getFooterLength();
      assertThat(afterTail.stream().filter(g -> g[0] < end && start < g[1]).count())
          .as("GETs of stripe %d's footer", i).isEqualTo(i == stripes.size() - 1 ? 0 : 1);
    }
  }
}
