/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.ahead.ReadsAhead;
import dev.slipstream.internal.learn.PredictedColumns;

/**
 * What a stream fetches ahead of an ORC reader, the one part of this room the stream tells: at a reader's
 * first read of a stripe, every stripe footer of its split ({@link StripeFooters}); once it moves on, or from
 * its first stripe when the client predicts the columns, the next stripes' streams of its columns ({@link
 * StripeStreamsAhead}), which go on as footers come in. At close, the columns it read are told to the
 * client's predictions. Nothing before the stream knows the file's tail: a stream of another format finds
 * every moment a no-op. Thread-safe.
 */
public final class OrcAhead implements ReadsAhead {
  private final StripeFooters footers;
  private final StripeStreamsAhead streams;

  /**
   * @param orc the stream's ORC layout
   * @param predictions the client's predicted columns, by schema
   * @param spans the stream's store: what it holds is not fetched ahead, and what is fetched ahead is held there
   * @param footersFetch how stripe footers are fetched ahead
   * @param streamsFetch how stripes' streams are fetched ahead
   * @param pieceSize the largest span
   * @param length the object's length
   * @param splitEnd the end (exclusive) of the caller's split, or 0 or less for none
   */
  public OrcAhead(StreamOrcLayout orc, PredictedColumns predictions, HeldSpans spans, AheadFetch footersFetch,
      AheadFetch streamsFetch, ReadStatistics stats, int pieceSize, long length, long splitEnd) {
    this.streams = new StripeStreamsAhead(orc, predictions, spans, streamsFetch, stats, pieceSize, splitEnd);
    this.footers = new StripeFooters(orc, spans, footersFetch, stats, pieceSize, length, splitEnd,
        streams::footerLearnt);
  }

  /** The footers first: a read of a stripe's first streams finds the wave of footers started. */
  @Override
  public void onRead(long position, int len) {
    footers.onRead(position, len);
    streams.onRead(position, len);
  }

  @Override
  public void closed() {
    streams.closed();
  }
}
