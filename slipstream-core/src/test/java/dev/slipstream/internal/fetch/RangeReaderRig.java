/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.store.ScriptedStore;
import java.io.IOException;
import java.util.function.UnaryOperator;

/**
 * A range reader over a {@link ScriptedStore}, with one open of its object and a token, as the range
 * reader's unit tests drive it: two retries 1 ms apart and no disk cache, plus what a test sets.
 */
final class RangeReaderRig implements AutoCloseable {
  static final S3Location WHERE = new S3Location("b", "k");

  final ScriptedStore store;
  final RangeReader reader;
  final ReadStatistics stats = ReadStatistics.global().child();
  /** An open of the store's object, its ETag {@code "v1"} at open. */
  final ObjectHandle handle;
  final CancelToken token = new CancelToken(() -> new IOException("closed: " + WHERE));

  RangeReaderRig(ScriptedStore store) {
    this(store, UnaryOperator.identity());
  }

  /** @param settings what the test sets on top of the rig's configuration */
  RangeReaderRig(ScriptedStore store, UnaryOperator<SlipstreamConfig.Builder> settings) {
    this.store = store;
    this.reader = new RangeReader(store, settings.apply(SlipstreamConfig.builder()
        .set("retry.max", "2").set("retry.interval", "1ms").set("retry.interval.max", "1ms")
        .set("cache.disk.mode", "off")).build());
    this.handle = open(store.data().length, "\"v1\"");
  }

  /** A new open of an object of {@code length} bytes, its ETag given at open as {@code etag} (null: not known yet). */
  ObjectHandle open(long length, String etag) {
    return new ObjectHandle(WHERE, length, false, etag, stats);
  }

  /** Bytes {@code [start, end)} read through {@link #handle}. */
  byte[] read(long start, long end) throws IOException {
    byte[] dst = new byte[(int) (end - start)];
    reader.read(handle, start, end, dst, 0, token);
    return dst;
  }

  @Override
  public void close() {
    reader.close();
  }
}
