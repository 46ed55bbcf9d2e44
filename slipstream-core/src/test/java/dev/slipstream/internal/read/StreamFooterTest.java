/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.parquet.ParquetFooter;
import dev.slipstream.internal.parquet.ParquetTestFiles;
import dev.slipstream.internal.store.ScriptedStore;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a stream's footer learns from a finished read, in the one step after it ({@link StreamFooter#offerRead}):
 * the object's tail the read fetched, or the read that was the footer itself.
 */
class StreamFooterTest {
  private static final int BLOCK = 256 * 1024;
  private final byte[] file;
  private final long length;
  private final StreamRig rig;

  StreamFooterTest() throws IOException {
    file = ParquetTestFiles.file(2, 4, 100_000, 1000, 0, 7);
    length = file.length;
    rig = new StreamRig(new FetchRig(new ScriptedStore(file, FetchRig.ETAG), BLOCK, 4, 64L << 20), 4);
  }

  @AfterEach
  void close() {
    rig.close();
  }

  /** The object's bytes {@code [start, start + len)} as a filled span, pinned for the caller. */
  private Span span(long start, int len) {
    Span s = new Span(start, rig.fetch.pool.tryAcquire(BufferPool.sizeFor(len)), len, rig.fetch.pool, rig.h.stats());
    System.arraycopy(file, (int) start, s.buffer(), 0, len);
    s.filled();
    return s;
  }

  @Test
  void theTailTheReadFetchedGivesTheStreamItsFooter() {
    Span tail = span(length - 4096, 4096);
    byte[] read = Arrays.copyOfRange(file, (int) length - 8, (int) length);

    rig.parquet.offerRead(length - 8, read, 0, 8, true, tail);
    tail.unpin();
    tail.releaseOwner();

    assertThat(rig.parquet.footer()).isNotNull();
    assertThat(rig.h.stats().get(Counter.PARQUET_FOOTERS_PARSED)).isEqualTo(1);
  }

  @Test
  void aStreamReadEndingAtTheLengthFieldIsTheFooterWhenTheHeldLastBytesSaySo() {
    Span lastEight = span(length - 8, 8); // the tail held, too short for the footer
    rig.spans.setTail(lastEight);
    lastEight.unpin();
    int footer = (int) ParquetFooter.footerLength(file, file.length - 8);
    long start = length - 8 - footer;
    byte[] read = Arrays.copyOfRange(file, (int) start, (int) length - 8);

    rig.parquet.offerRead(start, read, 0, footer, false, null); // served from held spans: not offered
    assertThat(rig.parquet.footer()).isNull();
    rig.parquet.offerRead(start, read, 0, footer, true, null);

    assertThat(rig.parquet.footer()).isNotNull();
    assertThat(rig.h.stats().get(Counter.PARQUET_FOOTERS_PARSED)).isEqualTo(1);
  }
}
