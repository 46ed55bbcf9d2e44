/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.ahead.ReadsAhead;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.learn.PredictedColumns;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * ORC stripes read ahead, as Parquet's row groups are ({@link RowGroupsAhead}): a reader decodes one
 * stripe while the next one's streams are on their way. The columns come from the first stripe the stream
 * reads streams of: a column whose streams (its data, and its indexes if it read them) the reader read
 * whole there is taken; one it read only part of (a filter that skipped row groups) is not. Once the
 * reader moves on to a later stripe (it read that stripe's first columns, so it reads the file's stripes
 * in turn), the same streams of the next stripes are fetched ahead, as their footers make them known
 * ({@link StripeFooters} fetched them all at the first stripe): with the end of the caller's split known,
 * every stripe to the split's last at once; without, one stripe ahead of the reader's, since the stripes
 * past the split are another task's and the stream does not know where it ends.
 *
 * <p>Across files: a query reads the same columns of every file of a table, so when the client's {@link
 * PredictedColumns} predict columns for the file's schema ({@link #schema}), the stream does not wait to
 * learn them: at the reader's first read in a stripe (its footer or its streams), the predicted columns'
 * data streams of that stripe, and by the same rule of the next ones, are fetched ahead, and the reader's
 * own reads of them wait for those spans. When the stream closes it tells the client which columns' data
 * streams it read in its first stripe, which of them whole, and how many bytes it fetched ahead and left
 * unread: the client predicts a column from two files in a row that read it whole, and switches a schema
 * off whose predicted bytes go unread, as for Parquet.
 *
 * <p>Bounded by the stream's one budget for bytes held ahead, in buffers (each at least {@link
 * BufferPool#SIZE_UNIT}, whatever the stream's length; {@link dev.slipstream.internal.ahead.AheadBudget}),
 * and by the pool's free memory (never waiting, never evicting); a stripe's spans are let go once the reader reads a later stripe, and what no read
 * copied of them is counted unread. Thread-safe.
 */
public final class StripeStreamsAhead implements ReadsAhead {
  /**
   * Mixed into an ORC file's schema hash ({@link OrcTail#schema}) to key it among the client's predicted
   * columns, which Parquet schemas ({@code ParquetFooter.schema}) key too: an ORC and a Parquet schema whose
   * hashes meet would otherwise share one prediction. Any constant that is not 0 does; this is "ORC" in ASCII.
   */
  static final long ORC_SCHEMA = 0x4f52_4300_0000_0000L;

  private final StreamOrcLayout orc;
  private final PredictedColumns predictions;
  private final ReadStatistics stats;
  private final long splitEnd;
  /** The stripe whose reads tell the columns, -1 before the first read of a stripe's streams; guarded by {@code this}. */
  private int learnt = -1;
  /** Bytes read of each stream of stripe {@link #learnt}; guarded by {@code this}. */
  private final Map<OrcTail.Stream, Long> read = new HashMap<>();
  /**
   * The columns taken (their data streams; {@code [1]} their index streams): those predicted for the schema
   * from the reader's first read in a stripe, else those learnt once the reader moved on; else null.
   */
  private BitSet[] taken;
  /** The client's predictions were asked for, at the first read in a stripe; guarded by {@code this}. */
  private boolean predictionAsked;
  /** What the reader read in stripe {@link #learnt} ({@link #taken(List)}), once it moved on; else null. */
  private BitSet[] found;
  /** Bytes fetched ahead by this stream, and of them those no read copied: told to the client at close. */
  private final AtomicLong fetched = new AtomicLong();
  private final AtomicLong unread = new AtomicLong();
  /** The last stripe whose streams were fetched ahead; guarded by {@code this}. */
  private int asked = -1;
  /** The last stripe the reader's position wants ahead, once it reads stripes in turn; guarded by {@code this}. */
  private int wanted = -1;
  /** The spans held, let go as the reader passes their stripes; guarded by {@code this}. */
  private final StripeSpans held;

  /**
   * @param orc the stream's ORC layout: the stripes and the streams of each
   * @param predictions the client's predicted columns, by schema
   * @param spans what the stream holds already
   * @param ahead how a span is fetched and held ahead of the reads
   * @param pieceSize the largest span
   * @param splitEnd the end (exclusive) of the caller's split, or 0 or less for none
   */
  public StripeStreamsAhead(StreamOrcLayout orc, PredictedColumns predictions, HeldSpans spans, AheadFetch ahead,
      ReadStatistics stats, int pieceSize, long splitEnd) {
    this.orc = orc;
    this.predictions = predictions;
    this.held = new StripeSpans(orc, spans, ahead, pieceSize);
    this.stats = stats;
    this.splitEnd = splitEnd;
  }

  /**
   * A columnar read of {@code [position, position + len)}: in the first stripe whose streams it reads, it
   * tells the columns; in a later one, the next stripes' same streams are fetched (that stripe's own too
   * if the read is its footer: its streams come next). With columns predicted for the schema, the first
   * read in a stripe fetches that stripe's streams of them and the next stripes' at once.
   */
  @Override
  public synchronized void onRead(long position, int len) {
    OrcLayout layout = orc.layout();
    OrcTail.Stripe at = held.reached(layout, position);
    if (at == null) {
      return;
    }
    boolean inStreams = position < at.footerStart();
    if (!predictionAsked) {
      predictionAsked = true;
      BitSet predicted = predictions.predict(schema(layout));
      if (predicted != null) {
        taken = new BitSet[] {predicted, new BitSet()}; // a prediction knows data streams, not indexes
      }
    }
    boolean first = learnt < 0 || learnt == at.index();
    if (first) {
      List<OrcTail.Stream> streams = layout.streams(at);
      if (inStreams && streams != null) {
        learnt = at.index();
        count(streams, position, position + len);
      }
      if (taken == null) {
        return; // the columns are learnt first
      }
    } else if (at.index() < learnt) {
      return; // the reader went back: not a reader of stripes in turn
    } else if (found == null) {
      found = taken(layout.streams(layout.tail().stripes().get(learnt)));
      if (taken == null) {
        taken = new BitSet[] {found[0], found[1]};
      }
    }
    if (taken[0].isEmpty() && taken[1].isEmpty()) {
      return;
    }
    List<OrcTail.Stripe> stripes = layout.tail().stripes();
    // The stripes before are passed; a predicted first stripe's own streams come ahead of the reader's reads.
    asked = Math.max(asked, (inStreams && !first ? at.index() + 1 : at.index()) - 1);
    int to = splitEnd > 0 ? StripeFooters.lastInSplit(stripes, splitEnd) : Math.min(stripes.size() - 1, at.index() + 1);
    wanted = Math.max(wanted, to);
    goOn(layout);
  }

  /**
   * A stripe's footer came in ({@link StripeFooters}): the stripes wanted ahead that waited for their
   * footers go on now, not at the reader's next read.
   */
  public synchronized void footerLearnt() {
    OrcLayout layout = orc.layout();
    if (layout != null && taken != null) {
      goOn(layout);
    }
  }

  /** Fetches the streams of the stripes after {@link #asked}, up to {@link #wanted}, in order. */
  private void goOn(OrcLayout layout) {
    List<OrcTail.Stripe> stripes = layout.tail().stripes();
    while (asked < wanted) {
      OrcTail.Stripe s = stripes.get(asked + 1);
      List<OrcTail.Stream> streams = layout.streams(s);
      if (streams == null || !fetchStripe(s, streams)) {
        return; // its footer not known yet (it goes on when it is), or out of budget or memory: a later read goes on
      }
      asked++;
    }
  }

  /** Counts the bytes of {@code [start, end)} against the streams it overlaps. */
  private void count(List<OrcTail.Stream> streams, long start, long end) {
    for (OrcTail.Stream x : streams) {
      long n = Math.min(end, x.end()) - Math.max(start, x.start());
      if (n > 0) {
        read.merge(x, n, (had, more) -> Math.min(x.length(), had + more));
      }
    }
  }

  /**
   * The columns whose streams of each kind (data {@code [0]}, index {@code [1]}) the reader read all of in
   * {@code streams}, the stripe it learnt from: a column any of whose streams of a kind it read part of, or
   * none of, is not taken for that kind; and ({@code [2]}) those any of whose data streams it read any of.
   */
  private BitSet[] taken(List<OrcTail.Stream> streams) {
    BitSet[] whole = {new BitSet(), new BitSet(), new BitSet()};
    BitSet[] partial = {new BitSet(), new BitSet()};
    for (OrcTail.Stream x : streams) {
      int kind = x.index() ? 1 : 0;
      long n = read.getOrDefault(x, 0L);
      if (n >= x.length()) {
        whole[kind].set(x.column());
      } else {
        partial[kind].set(x.column());
      }
      if (n > 0 && !x.index()) {
        whole[2].set(x.column());
      }
    }
    whole[0].andNot(partial[0]);
    whole[1].andNot(partial[1]);
    read.clear();
    return whole;
  }

  /**
   * The stream closed: the client's predictions learn, for the file's schema, the columns whose data streams
   * the reader read in its first stripe, those it read whole there, and the bytes this stream fetched ahead
   * and left unread (call after its spans were let go, so that they are counted).
   */
  public synchronized void closed() {
    OrcLayout layout = orc.layout();
    if (layout == null) {
      return;
    }
    BitSet[] f = found;
    if (f == null && learnt >= 0) {
      List<OrcTail.Stream> streams = layout.streams(layout.tail().stripes().get(learnt));
      f = streams == null ? null : taken(streams);
    }
    BitSet touched = f == null ? new BitSet() : f[2];
    BitSet whole = f == null ? new BitSet() : f[0];
    predictions.closed(schema(layout), touched, whole, fetched.get(), unread.get());
  }

  /** The key of the file's schema among the client's predicted columns. */
  static long schema(OrcLayout layout) {
    return layout.tail().schema() ^ ORC_SCHEMA;
  }

  /**
   * Fetches the taken streams of {@code stripe} (adjacent ones in one span, at most a piece each), but for
   * what the stream holds; false if the budget or the free memory ran out.
   */
  private boolean fetchStripe(OrcTail.Stripe stripe, List<OrcTail.Stream> streams) {
    List<long[]> runs = new ArrayList<>();
    for (OrcTail.Stream x : streams) {
      if (!taken[x.index() ? 1 : 0].get(x.column())) {
        continue;
      }
      long[] last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
      if (last != null && last[1] == x.start()) {
        last[1] = x.end();
      } else {
        runs.add(new long[] {x.start(), x.end()});
      }
    }
    for (long[] run : runs) {
      long end = held.unheldEnd(run[0], run[1]);
      if (end > run[0] && !fetch(stripe, run[0], end)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Fetches {@code [p, end)} into spans of at most a piece, held ahead, all of them one range (the GETs of
   * one buffer); false if the budget or the free memory ran out before its end (what was taken is fetched).
   * The budget counts the buffers held ({@link AheadFetch#buffer}), not the bytes asked for: a stream of a few
   * bytes takes a buffer of {@link BufferPool#SIZE_UNIT}, and small streams apart from one another would
   * otherwise hold many times the budget.
   */
  private boolean fetch(OrcTail.Stripe stripe, long p, long end) {
    List<byte[]> buffers = new ArrayList<>();
    int pieceSize = held.pieceSize();
    AheadFetch ahead = held.ahead();
    int len = 0;
    boolean all = true;
    while (p + len < end) {
      if (len > Integer.MAX_VALUE - pieceSize) {
        all = false; // one range is at most what an int counts: the rest waits for the next stripe's read
        break;
      }
      int n = (int) Math.min(pieceSize, end - p - len);
      byte[] buffer = ahead.buffer(n); // within the stream's budget, from free memory
      if (buffer == null) {
        all = false;
        break;
      }
      buffers.add(buffer);
      len += n;
    }
    if (buffers.isEmpty()) {
      return false;
    }
    stats.add(Counter.ORC_STRIPE_AHEAD_BYTES, len);
    fetched.addAndGet(len);
    for (Span span : ahead.start(p, buffers, len, pieceSize, buffer -> { }, span -> {
      int n = span.length();
      return copied -> {
        stats.add(Counter.ORC_STRIPE_AHEAD_BYTES_UNREAD, Math.max(0, n - copied));
        unread.addAndGet(Math.max(0, n - copied));
      };
    }, false)) {
      held.add(span, stripe.index());
    }
    return all;
  }
}
