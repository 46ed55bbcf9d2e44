/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import dev.slipstream.Counter;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.learn.ClientLayout;
import dev.slipstream.internal.orc.StreamOrcLayout;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * One stream's Parquet footer ({@link ParquetFooter}, the file's layout): the client's for the version the
 * stream reads, from the first read on; else the one parsed from the tail or the footer this stream read,
 * given to the client for its later streams. Null while none is known (not Parquet, or not yet read). The
 * stream's reads are counted against its column chunks ({@link #countRead}), which the client's predicted
 * columns learn from when the stream closes. Thread-safe.
 */
public final class StreamFooter {
  /**
   * The most a read at a column chunk's start may ask for and still be a page header's first field read
   * through Thrift (a byte, in practice), not data: a page is larger than this.
   */
  static final int HEADER_READ = 256;

  private final ObjectHandle h;
  private final ParquetFooters footers;
  /** The bytes the stream holds outside its blocks: where a read that may be the footer finds the last 8. */
  private final HeldSpans spans;
  private final ClientLayout<ParquetFooter> footer;
  /** Bytes this stream's reads took of each chunk they touched, by the chunk; guarded by {@code this}. */
  private final Map<ParquetFooter.Chunk, Long> chunksRead = new HashMap<>();
  /** A read was among the page indexes: the reader filters pages by a column index. */
  private volatile boolean indexesRead;
  /** The ORC layout of the version, learnt from the tail or the client's ({@link StreamOrcLayout}). */
  private final StreamOrcLayout orc;

  public StreamFooter(ObjectHandle h, ParquetFooters footers, StreamOrcLayout orc, HeldSpans spans) {
    this.h = h;
    this.footers = footers;
    this.spans = spans;
    this.footer = new ClientLayout<>(h.location(), h.length(), h::etag, h.stats(), footers::get,
        Counter.PARQUET_FOOTERS_REUSED);
    this.orc = orc;
  }

  /** The stream's ORC layout (its plan null while none is known, or for a Parquet file). */
  public StreamOrcLayout orc() {
    return orc;
  }

  /** The footer, or null. */
  public ParquetFooter footer() {
    return footer.get();
  }

  /**
   * What the layout says a columnar read of {@code [start, end)} belongs with ({@link #around}): a column
   * chunk ({@link Purpose#CHUNK}), the page indexes ({@link Purpose#INDEX}) or nothing more than itself
   * ({@link Purpose#RANGE}), and the bytes {@code [start, end)} that come with it.
   *
   * @param planned the read lies in a column chunk (or an ORC stream) the layout knows: a range there after
   *     a jump is one the reader planned from the footer
   */
  public record Around(Purpose why, long start, long end, boolean planned) {}

  /**
   * What the layout says of a columnar read of {@code [position, position + len)}. A read of a few bytes
   * ({@link #HEADER_READ} at most) at the dictionary page that starts a Parquet column chunk is that page's
   * header read field by field through Thrift (the dictionary filter reads each row group's dictionary page
   * so, and so does a reader about to read pages a column index selected): the whole chunk comes with it,
   * whose data pages follow, unless the footer names an offset index for the chunk: then the reader may read
   * only some of its pages, and the dictionary page alone comes. A read among the page indexes and bloom
   * filters comes with the rest of them (a reader that reads one reads the others), from their start if they
   * are no larger than {@code most}: a filter reads the indexes of each column it filters on. Any other read
   * is a range the reader chose (a chunk, or the pages a column index selected): itself alone.
   */
  public Around around(long position, int len, int most) {
    long end = position + len;
    ParquetFooter f = footer();
    if (f == null) {
      return new Around(Purpose.RANGE, position, end, orc.inDataStream(position));
    }
    long start = f.inIndexes(position) && end <= f.indexEnd() && f.indexEnd() - f.indexStart() <= most
        ? f.indexStart() : position;
    ParquetFooter.Chunk c = f.chunkAt(position);
    if (c != null && c.dictionary() && c.start() == position && len <= HEADER_READ) {
      return new Around(Purpose.CHUNK, start, Math.max(end, c.pageIndexed() ? c.dataPages() : c.end()), true);
    }
    if (c == null && f.inIndexes(position)) {
      return new Around(Purpose.INDEX, start, Math.max(end, f.indexEnd()), false);
    }
    return new Around(Purpose.RANGE, start, end, c != null);
  }

  /** Whether the footer has a column chunk or the page indexes at {@code position}, or an ORC stripe there. */
  public boolean covers(long position) {
    ParquetFooter f = footer();
    return f != null ? f.chunkAt(position) != null || f.inIndexes(position) : orc.covers(position);
  }

  /**
   * A read of {@code b[off..off + len)} at {@code position} is done: what it shows of the file's layout is
   * learnt, in one step after the read. The object's tail, if the read fetched it ({@code tail}, pinned by
   * the caller; null otherwise), comes first: its footer, if it holds one, is the stream's. Then a read of
   * the stream's position whose bytes were not in the spans it holds ({@code streamRead}) and that ended
   * where the footer's length field starts may have been the footer ({@link #offerFooter}); else, if it was
   * an ORC file's tail or a stripe's footer, the ORC layout learns from it ({@link
   * StreamOrcLayout#offerRead}). Reads nothing from S3.
   */
  public void offerRead(long position, byte[] b, int off, int len, boolean streamRead, Span tail) {
    if (tail != null) {
      offerTail(tail.buffer(), tail.length());
    }
    if (footer.known() == null && streamRead && position + len == h.length() - 8) {
      offerFooter(position, b, off, len);
    }
    if (footer.known() == null) {
      orc.offerRead(position, b, off, len);
    }
  }

  /** The object's tail, {@code b[0..len)}, was fetched: its footer, if it holds one, is the stream's. */
  private void offerTail(byte[] b, int len) {
    if (footer.known() == null) {
      keep(ParquetFooter.parse(b, len, h.length()));
    }
    if (footer.known() == null) {
      orc.offerRead(h.length() - len, b, 0, len);
    }
  }

  /**
   * A read of {@code b[off..off + len)} at {@code position} ended where the footer's length field starts
   * ({@code length - 8}): if the object's last 8 bytes, held in the stream's spans (the tail), say the
   * footer is exactly this long and the file is Parquet, these bytes are the footer (a footer larger than
   * the tail fetched first, as a file of many columns and row groups has).
   */
  private void offerFooter(long position, byte[] b, int off, int len) {
    byte[] lengthAndMagic = new byte[8];
    if (!spans.copyAll(h.length() - 8, lengthAndMagic, 0, 8) || lengthAndMagic[4] != 'P' || lengthAndMagic[5] != 'A'
        || lengthAndMagic[6] != 'R' || lengthAndMagic[7] != '1' || ParquetFooter.footerLength(lengthAndMagic, 0) != len) {
      return;
    }
    keep(ParquetFooter.parseFooter(b, off, len, h.length()));
  }

  /**
   * Counts a read of {@code [position, position + len)} against each column chunk it touches (and notes
   * a read among the page indexes): what the stream read of each column, told to the client's predicted
   * columns at close. Reads nothing.
   */
  public void countRead(long position, int len) {
    ParquetFooter f = footer();
    if (f == null) {
      return;
    }
    long end = position + len;
    if (f.inIndexes(position)) {
      indexesRead = true;
    }
    synchronized (this) {
      for (ParquetFooter.Chunk c = f.chunkFrom(position); c != null && c.start() < end; c = f.chunkAfter(c)) {
        long n = Math.min(end, c.end()) - Math.max(position, c.start());
        long most = c.length();
        chunksRead.merge(c, n, (had, more) -> Math.min(most, had + more));
      }
    }
  }

  /**
   * The columns this stream's reads touched ({@code [0]}), and those it read whole ({@code [1]}): at
   * least three quarters of the bytes of the chunks of it that its reads touched. A column of which a
   * reader read only some pages (those a column index selected) or only the dictionary page (of a row
   * group its dictionary filter then dropped) is touched, not read whole.
   */
  private synchronized BitSet[] columnsRead() {
    Map<Integer, long[]> byColumn = new HashMap<>(); // {bytes read, bytes of the chunks touched}
    for (Map.Entry<ParquetFooter.Chunk, Long> e : chunksRead.entrySet()) {
      long[] t = byColumn.computeIfAbsent(e.getKey().column(), k -> new long[2]);
      t[0] += e.getValue();
      t[1] += e.getKey().length();
    }
    BitSet touched = new BitSet();
    BitSet whole = new BitSet();
    byColumn.forEach((column, t) -> {
      touched.set(column);
      if (t[0] * 4 >= t[1] * 3) {
        whole.set(column);
      }
    });
    return new BitSet[] {touched, whole};
  }

  /**
   * The columns whose chunks the client fetches ahead once this stream touches them (see {@link
   * PredictedColumns}), or null: no footer, or no prediction for its schema.
   */
  public BitSet predictedColumns() {
    ParquetFooter f = footer();
    return f == null ? null : footers.columns().predict(f.schema());
  }

  /**
   * Whether the client switched predictions off for this file's schema, more than a quarter of the bytes
   * fetched ahead by them having gone unread; false without a footer.
   */
  public boolean predictionsOff() {
    ParquetFooter f = footer();
    return f != null && footers.columns().off(f.schema());
  }

  /**
   * Whether a read was among the page indexes: the reader filters pages by a column index, and may read
   * only some pages of the chunks that have an offset index.
   */
  public boolean indexesRead() {
    return indexesRead;
  }

  /** The stream closed, having fetched {@code predicted} bytes by prediction, {@code unread} of them unread. */
  public void closed(long predicted, long unread) {
    ParquetFooter f = footer.known();
    if (f != null) {
      BitSet[] read = columnsRead();
      footers.columns().closed(f.schema(), read[0], read[1], predicted, unread);
    }
  }

  private void keep(ParquetFooter f) {
    if (f == null) {
      return;
    }
    footer.set(f);
    h.stats().increment(Counter.PARQUET_FOOTERS_PARSED);
    footers.remember(h.location(), h.length(), h.etag(), f);
  }
}
