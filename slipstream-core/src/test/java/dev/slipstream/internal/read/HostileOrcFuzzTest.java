/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.OpenOptions;
import dev.slipstream.ReadPolicy;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.TestClients;
import dev.slipstream.internal.orc.OrcBuilder;
import dev.slipstream.internal.orc.OrcChunks;
import dev.slipstream.internal.orc.OrcLayout;
import dev.slipstream.internal.orc.OrcTail;
import dev.slipstream.testkit.S3ServerExtension;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ORC files an attacker wrote, from fixed seeds: tails and stripe footers that list hundreds of thousands of
 * streams, streams of columns the schema does not have, lengths of 2 GiB and more up to {@code
 * Long.MAX_VALUE}, stripes that end past {@code Long.MAX_VALUE}, footers of random bytes, a corrupted tail,
 * a schema of tens of thousands of types, every codec the parser decodes; and honest stripes between them.
 * Each goes through the tail parser and the layout, then through real streams on the embedded S3 server read
 * as ORC's reader reads (the tail, then each stripe's footer and its streams, as the file claims them), so
 * that {@link StripeFooters} and {@link StripeStreamsAhead} fetch ahead of the reads whatever the footers
 * say. Whatever a file claims: no exception reaches a read, every read returns the file's bytes, no layout
 * takes more than {@link OrcTail#MAX_LAYOUT_BYTES}, the pool never holds more than its budget, and nothing is
 * held once the streams are closed. Deterministic and bounded: {@link #PARSES} files through the parser,
 * {@link #FILES} of them through the streams, in seconds.
 */
@Timeout(180)
class HostileOrcFuzzTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "hostile-orc";
  static final int PARSES = 200;
  static final int FILES = 32;
  static final int[] CODECS = {OrcChunks.NONE, OrcChunks.ZLIB, OrcChunks.SNAPPY, OrcChunks.LZ4, OrcChunks.ZSTD};

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
  }

  @Test
  void hostileTailsAndStripeFootersAreNoPlanOrABoundedOneNeverAnError() throws IOException {
    int plans = 0;
    int learnt = 0;
    int refused = 0;
    for (int seed = 0; seed < PARSES; seed++) {
      byte[] file = hostile(seed).file();
      OrcTail t = OrcTail.parse(file, file.length, file.length);
      if (t == null) {
        continue;
      }
      plans++;
      assertThat(t.heapBytes()).as("seed %d", seed).isLessThanOrEqualTo(OrcTail.MAX_LAYOUT_BYTES / 2);
      OrcLayout layout = new OrcLayout(t);
      for (OrcTail.Stripe s : t.stripes()) {
        assertThat(s.offset()).isGreaterThanOrEqualTo(3);
        assertThat(s.end()).as("seed %d", seed).isBetween(s.offset(), (long) file.length);
        assertThat(s.footerLength()).isLessThanOrEqualTo(OrcTail.MAX_LAYOUT_BYTES);
        if (layout.learn(s, file, (int) s.footerStart(), (int) s.footerLength())) {
          learnt++;
          for (OrcTail.Stream x : layout.streams(s)) {
            assertThat(x.column()).as("seed %d", seed).isBetween(0, t.columns() - 1);
            assertThat(x.start()).isGreaterThanOrEqualTo(s.offset());
            assertThat(x.end()).isLessThanOrEqualTo(s.footerStart());
          }
        } else if (!layout.knows(s)) {
          refused++;
        }
        assertThat(layout.heapBytes()).as("seed %d", seed).isLessThanOrEqualTo(OrcTail.MAX_LAYOUT_BYTES);
      }
    }
    // The seeds reach every outcome: plans, stripes learnt, and stripes refused.
    assertThat(plans).isGreaterThan(PARSES / 4);
    assertThat(learnt).isPositive();
    assertThat(refused).isPositive();
  }

  @Test
  void hostileFilesReadThroughRealStreamsReturnTheirBytesAndHoldNoMoreThanTheirBounds() throws Exception {
    // Small blocks and memory, so that the parts fetching ahead meet their budgets and the pool's; the
    // memory cache on, whose kept bytes they must not push out beyond theirs.
    try (Slipstream c = Slipstream.builder().isolatedResources()
        .config(TestClients.config(S3.server()).set("block.size", "1M").set("prefetch.blocks", "2")
            .set("memory.max", "16M").set("cache.memory", "true").build())
        .build()) {
      long footersAhead = 0;
      long streamsAhead = 0;
      int layouts = 0;
      for (int seed = 0; seed < FILES; seed++) {
        Random r = new Random(seed * 7919L);
        OrcBuilder.Written w = hostile(seed);
        byte[] file = w.file();
        S3Location where = S3Location.parse("s3://" + BUCKET + "/f-" + seed + ".orc");
        S3.server().putObject(BUCKET, where.key(), file);
        String etag;
        try (SlipstreamInputStream tail = c.open(where)) { // the split computation, the schema: the tail
          int n = Math.min(16 * 1024, file.length);
          read(tail, file, file.length - n, n, 0, seed);
          etag = tail.etag();
        }
        OpenOptions options = OpenOptions.known(file.length, etag);
        if (r.nextBoolean()) {
          options = options.withSplitEnd(1 + r.nextInt(file.length));
        }
        if (r.nextInt(3) == 0) {
          options = options.withPolicy(ReadPolicy.RANDOM);
        }
        try (SlipstreamInputStream in = c.open(where, options)) { // the record reader
          for (int s = 0; s < w.stripeOffsets().size(); s++) {
            long start = w.stripeOffsets().get(s);
            long footer = w.footerStarts().get(s);
            read(in, file, footer, w.footerLengths().get(s), r.nextInt(4), seed);
            if (r.nextBoolean()) {
              // The streams of columns 1 and 3 as the footer lists them, where they lie in the stripe: a
              // reader of two columns, whose next stripes' streams come ahead once it moves on.
              long at = start;
              int reads = 0;
              for (OrcBuilder.StreamSpec x : w.streams().get(s)) {
                if ((x.column() == 1 || x.column() == 3) && x.length() <= footer - at && reads++ < 64) {
                  read(in, file, at, (int) x.length(), r.nextInt(4), seed);
                }
                at += Math.min(x.length(), footer - at);
              }
              continue;
            }
            // Else a few ranges of the stripe, in order, wherever a hostile footer may have said its streams lie.
            long at = start;
            for (int k = r.nextInt(4); k > 0 && at < footer; k--) {
              long from = at + r.nextInt((int) Math.min(Integer.MAX_VALUE, footer - at));
              int len = (int) Math.min(footer - from, 1 + r.nextInt(r.nextBoolean() ? 2_000 : 200_000));
              read(in, file, from, len, r.nextInt(4), seed);
              at = from + len;
            }
          }
          OrcLayout layout = ((ObjectReader) in).orcLayout();
          if (layout != null) {
            layouts++;
            assertThat(layout.heapBytes()).as("seed %d", seed).isLessThanOrEqualTo(OrcTail.MAX_LAYOUT_BYTES);
          }
          assertThat(c.memoryInUse()).as("seed %d", seed).isLessThanOrEqualTo(c.memoryBudget());
          footersAhead += in.statistics().get(Counter.ORC_STRIPE_FOOTERS_FETCHED);
          streamsAhead += in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES);
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (c.memoryInUse() > 0 && System.nanoTime() < deadline) {
          Thread.sleep(5);
        }
        assertThat(c.memoryInUse()).as("held after close, seed %d", seed).isZero();
      }
      // The seeds reach the parts that fetch ahead, not only files with no layout.
      assertThat(layouts).isGreaterThan(FILES / 3);
      assertThat(footersAhead).isPositive();
      assertThat(streamsAhead).isPositive();
    }
  }

  /**
   * Reads {@code [position, position + len)} of the stream in one of four ways (a positional read, a seek
   * and a read, a vectored read, a read of a single byte then the rest) and checks it is the file's.
   */
  static void read(SlipstreamInputStream in, byte[] file, long position, int len, int how, int seed)
      throws Exception {
    long end = Math.min(file.length, position + len);
    if (position < 0 || position >= end) {
      return;
    }
    int n = (int) (end - position);
    byte[] b = new byte[n];
    switch (how) {
      case 0 -> in.readFully(position, b, 0, n);
      case 1 -> {
        in.seek(position);
        int got = 0;
        while (got < n) {
          int k = in.read(b, got, n - got);
          assertThat(k).as("seed %d: a read at %d", seed, position + got).isPositive();
          got += k;
        }
      }
      case 2 -> in.readFullyAsync(position, b, 0, n).get();
      default -> {
        in.seek(position);
        b[0] = (byte) in.read();
        in.readFully(position + 1, b, 1, n - 1);
      }
    }
    assertThat(b).as("seed %d: %d bytes at %d", seed, n, position)
        .isEqualTo(Arrays.copyOfRange(file, (int) position, (int) end));
  }

  // ---- the files ------------------------------------------------------------------------------

  /** The file of {@code seed}: its codec by the seed (every one in turn), its stripes honest or not. */
  static OrcBuilder.Written hostile(int seed) throws IOException {
    Random r = new Random(seed);
    int codec = CODECS[seed % CODECS.length];
    int types = pick(r, 4, 4, 4, 7, 200, 70_000);
    OrcBuilder b = new OrcBuilder(codec).types(types);
    if (r.nextInt(10) == 0) {
      b.blockSize(pick(r, 1, 3, 1 << 30, 1L << 40)); // a compression block no footer fits, or absurd
    }
    // A third of the files lie in their tail (a stripe entry, flipped bytes): no plan, mostly. The others
    // lie in their stripe footers only, which a plan then meets.
    boolean tailLies = seed % 3 == 0;
    int stripes = 1 + r.nextInt(r.nextInt(5) == 0 ? 40 : 6);
    boolean listed = false; // one stripe of a file at most lists a great many streams: they take time to write
    for (int s = 0; s < stripes; s++) {
      int kind = r.nextInt(8);
      if (kind == 2 && listed || kind == 5 && !tailLies) {
        kind = 0;
      }
      switch (kind) {
        case 0, 1 -> b.stripe(honest(r, types));
        case 2 -> { // hundreds of thousands of one-byte streams, a few KB compressed
          listed = true;
          int n = 20_000 + r.nextInt(codec == OrcChunks.NONE ? 60_000 : 150_000);
          List<OrcBuilder.StreamSpec> many = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            many.add(new OrcBuilder.StreamSpec(1, 1 + i % Math.min(types - 1, 3), 1));
          }
          b.stripe(many);
        }
        case 3 -> { // a stream of a column the schema does not have
          List<OrcBuilder.StreamSpec> streams = new ArrayList<>(honest(r, types));
          int i = r.nextInt(streams.size());
          OrcBuilder.StreamSpec x = streams.get(i);
          streams.set(i, new OrcBuilder.StreamSpec(x.kind(),
              pick(r, types, types + r.nextInt(1_000), Integer.MAX_VALUE, 1L << 40, Long.MAX_VALUE), x.length()));
          b.stripe(streams, sum(streams), null, null);
        }
        case 4 -> { // a stream far longer than the stripe
          List<OrcBuilder.StreamSpec> streams = new ArrayList<>(honest(r, types));
          long body = sum(streams);
          int i = r.nextInt(streams.size());
          OrcBuilder.StreamSpec x = streams.get(i);
          streams.set(i, new OrcBuilder.StreamSpec(x.kind(), x.column(),
              pick(r, 1L << 31, (1L << 31) + r.nextInt(1 << 20), 1L << 32, 1L << 40, Long.MAX_VALUE / 2, Long.MAX_VALUE)));
          b.stripe(streams, body, null, null);
        }
        case 5 -> { // a stripe entry that lies: where it starts, its lengths, its footer's
          List<OrcBuilder.StreamSpec> streams = honest(r, types);
          long[] info = {-1, -1, -1, -1};
          int field = r.nextInt(4);
          info[field] = switch (field) {
            case 0 -> pick(r, Long.MAX_VALUE, Long.MAX_VALUE - r.nextInt(100_000), 1L << 40, 0);
            case 3 -> pick(r, 1L << 31, (1L << 31) + r.nextInt(1 << 20), 1L << 32, 5L << 20, Long.MAX_VALUE - 10);
            default -> pick(r, 0, 1L << 31, 1L << 40, Long.MAX_VALUE - r.nextInt(1_000), Long.MAX_VALUE);
          };
          b.stripe(streams, sum(streams), null, info);
        }
        case 6 -> { // a footer of random bytes, compressed or not
          byte[] junk = new byte[1 + r.nextInt(2_000)];
          r.nextBytes(junk);
          b.stripe(List.of(), r.nextInt(3_000), r.nextBoolean() ? junk : OrcBuilder.compress(junk, codec), null);
        }
        default -> { // small streams apart from one another (columns 1 and 3), a large one between them
          List<OrcBuilder.StreamSpec> streams = new ArrayList<>();
          for (int c = 1; c <= Math.min(3, types - 1); c++) {
            streams.add(new OrcBuilder.StreamSpec(1, c, c == 2 ? 30_000 + r.nextInt(70_000) : 1 + r.nextInt(3_000)));
          }
          b.stripe(streams);
        }
      }
    }
    OrcBuilder.Written w = b.build();
    if (tailLies && r.nextBoolean()) { // a few bytes of the tail flipped
      for (int k = 1 + r.nextInt(3); k > 0; k--) {
        w.file()[w.file().length - 1 - r.nextInt(w.tailLength())] = (byte) r.nextInt(256);
      }
    }
    return w;
  }

  /** An honest stripe's streams: the index streams first, then each column's PRESENT and DATA. */
  static List<OrcBuilder.StreamSpec> honest(Random r, int types) {
    int columns = Math.min(types - 1, 1 + r.nextInt(6));
    List<OrcBuilder.StreamSpec> streams = new ArrayList<>();
    if (r.nextBoolean()) {
      for (int c = 1; c <= columns; c++) {
        streams.add(new OrcBuilder.StreamSpec(6, c, 10 + r.nextInt(300)));
      }
    }
    for (int c = 1; c <= columns; c++) {
      streams.add(new OrcBuilder.StreamSpec(0, c, 1 + r.nextInt(50)));
      streams.add(new OrcBuilder.StreamSpec(1, c, 1 + r.nextInt(r.nextBoolean() ? 2_000 : 60_000)));
    }
    return streams;
  }

  static long sum(List<OrcBuilder.StreamSpec> streams) {
    long n = 0;
    for (OrcBuilder.StreamSpec x : streams) {
      n += x.length();
    }
    return n;
  }

  static long pick(Random r, long... values) {
    return values[r.nextInt(values.length)];
  }

  static int pick(Random r, int... values) {
    return values[r.nextInt(values.length)];
  }
}
