/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.ObjectChangedException;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import dev.slipstream.internal.store.ScriptedStore;
import dev.slipstream.internal.store.ScriptedStore.Answer;
import dev.slipstream.internal.store.ScriptedStore.Response;
import java.io.IOException;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every response is checked against its request before a byte of it is used (docs/architecture.md,
 * rule 1), through the range reader against a scripted store: what was asked, what came back, and what
 * the caller got. A refusal is not retried (the server would answer the same way) and leaves the
 * caller's buffer as it was.
 */
class ResponseCheckTest {
  /** More than one block (1 KiB here): a 200 of it is only taken for a request of all of it. */
  private static final byte[] LARGE = ScriptedStore.bytes(4096);
  /** At most one block: a 200 of it is read through to the range asked for. */
  private static final byte[] SMALL = ScriptedStore.bytes(1000);

  /** The object is LARGE: the right 206 for whatever is asked of it is {@code store.whole()}. */
  private final ScriptedStore store = new ScriptedStore(LARGE, "v1");
  private final RangeReaderRig rig = new RangeReaderRig(store, c -> c
      .set("block.size", "1K").set("hedge.budget", "0")); // every GET on the calling thread, none hedged
  private final RangeReader reader = rig.reader;
  private final ReadStatistics stats = rig.stats;
  private final CancelToken token = rig.token;

  @AfterEach
  void closeReader() {
    rig.close();
  }

  /** A stream of {@code data}'s object, its ETag given at open as {@code etag} (null: not known yet). */
  private ObjectHandle open(byte[] data, String etag) {
    return rig.open(data.length, etag);
  }

  /** A 206 with this Content-Range and Content-Length, and this body. */
  private Answer partial(String contentRange, long contentLength, byte[] body) {
    return (start, end) -> new Response(206, contentRange, contentLength, body, -1, false, store.etag());
  }

  /** A 200 with the whole of {@code data}, whatever was asked. */
  private Answer wholeObject(byte[] data) {
    return (start, end) -> new Response(200, null, data.length, data.clone(), -1, false, store.etag());
  }

  @Test
  void a206OfExactlyTheRangeIsUsed() throws IOException {
    store.then(store.whole());
    byte[] dst = new byte[500];

    reader.read(open(LARGE, "\"v1\""), 100, 600, dst, 0, token);

    assertThat(dst).isEqualTo(Arrays.copyOfRange(LARGE, 100, 600));
    assertThat(store.ranges()).containsExactly("100-600");
    assertThat(store.responses().get(0).closed()).as("read to its end: the connection is kept").isTrue();
  }

  @Test
  void a206WithNoOrAMalformedContentRangeIsRefused() {
    store.then(partial(null, 500, Arrays.copyOfRange(LARGE, 100, 600)))
        .then(partial("bytes 100-x/4096", 500, Arrays.copyOfRange(LARGE, 100, 600)));
    byte[] dst = new byte[500];

    assertThatThrownBy(() -> reader.read(open(LARGE, "\"v1\""), 100, 600, dst, 0, token))
        .isExactlyInstanceOf(IOException.class)
        .hasMessage("GET s3://b/k bytes 100-599: the server answered 206 without a Content-Range; its bytes are"
            + " not used");
    assertThatThrownBy(() -> reader.read(open(LARGE, "\"v1\""), 100, 600, dst, 0, token))
        .isExactlyInstanceOf(IOException.class)
        .hasMessageContaining("with a malformed Content-Range [bytes 100-x/4096]");
    assertThat(store.ranges()).containsExactly("100-600", "100-600");
    assertThat(store.responses()).allSatisfy(r -> assertThat(r.aborted()).isTrue());
    assertThat(dst).containsOnly(0);
    assertThat(stats.get(Counter.RETRIES)).isZero();
  }

  @Test
  void a206OfAnotherRangeOrWithoutTheObjectsLengthIsRefused() {
    store.then(partial("bytes 0-499/4096", 500, Arrays.copyOfRange(LARGE, 0, 500)))
        .then(partial("bytes 100-599/*", 500, Arrays.copyOfRange(LARGE, 100, 600)));
    byte[] dst = new byte[500];

    assertThatThrownBy(() -> reader.read(open(LARGE, "\"v1\""), 100, 600, dst, 0, token))
        .isExactlyInstanceOf(IOException.class)
        .hasMessageContaining("answered bytes 0-499/4096, another range than the one asked for");
    assertThatThrownBy(() -> reader.read(open(LARGE, "\"v1\""), 100, 600, dst, 0, token))
        .isExactlyInstanceOf(IOException.class)
        .hasMessageContaining("answered bytes 100-599/* without the object's length");
    assertThat(store.ranges()).containsExactly("100-600", "100-600");
    assertThat(dst).containsOnly(0);
    assertThat(stats.get(Counter.RETRIES)).isZero();
  }

  @Test
  void a206NamingAnotherLengthThanTheOneAtOpenIsAnotherVersion() {
    store.then(partial("bytes 100-599/5000", 500, Arrays.copyOfRange(LARGE, 100, 600)));
    byte[] dst = new byte[500];

    assertThatThrownBy(() -> reader.read(open(LARGE, "\"v1\""), 100, 600, dst, 0, token))
        .isExactlyInstanceOf(ObjectChangedException.class)
        .hasMessageContaining("length 4096 at open, the object now has 5000 bytes");
    assertThat(store.ranges()).containsExactly("100-600");
    assertThat(dst).containsOnly(0);
  }

  @Test
  void a206WhoseContentLengthIsNotTheRangesIsRefused() {
    store.then(partial("bytes 100-599/4096", 400, Arrays.copyOfRange(LARGE, 100, 500)));
    byte[] dst = new byte[500];

    assertThatThrownBy(() -> reader.read(open(LARGE, "\"v1\""), 100, 600, dst, 0, token))
        .isExactlyInstanceOf(IOException.class)
        .hasMessageContaining("answered bytes 100-599/4096 with a Content-Length of 400 instead of 500");
    assertThat(store.ranges()).containsExactly("100-600");
    assertThat(dst).containsOnly(0);
  }

  @Test
  void aShortBodyIsRetriedFromItsLastByteAndALongChunkedOneRefused() throws IOException {
    // chunked (no Content-Length): the body's end is the only length there is
    store.then((start, end) -> new Response(206, "bytes 100-599/4096", -1, Arrays.copyOfRange(LARGE, 100, 600), 300,
        false, store.etag())).then(store.whole());
    byte[] dst = new byte[500];

    reader.read(open(LARGE, "\"v1\""), 100, 600, dst, 0, token);

    assertThat(dst).isEqualTo(Arrays.copyOfRange(LARGE, 100, 600));
    assertThat(store.ranges()).containsExactly("100-600", "400-600");
    assertThat(stats.retries(RetryCause.TRUNCATED)).isEqualTo(1);

    store.forget();
    store.then((start, end) -> new Response(206, "bytes 100-599/4096", -1, Arrays.copyOfRange(LARGE, 100, 700), -1,
        false, store.etag()));
    assertThatThrownBy(() -> reader.read(open(LARGE, "\"v1\""), 100, 600, new byte[500], 0, token))
        .isExactlyInstanceOf(IOException.class)
        .hasMessageContaining("the body goes on past the 500 bytes of the range; its bytes are not used");
    assertThat(store.ranges()).containsExactly("100-600");
  }

  @Test
  void a200WithTheWholeObjectIsUsedForARequestOfTheWholeObject() throws IOException {
    store.then(wholeObject(LARGE));
    byte[] dst = new byte[LARGE.length];

    reader.read(open(LARGE, "\"v1\""), 0, LARGE.length, dst, 0, token);

    assertThat(dst).isEqualTo(LARGE);
    assertThat(store.ranges()).containsExactly("0-4096");
  }

  @Test
  void a200WithAWholeObjectOfOneBlockIsReadThroughToTheRange() throws IOException {
    store.then(wholeObject(SMALL));
    byte[] dst = new byte[500];

    reader.read(open(SMALL, "\"v1\""), 100, 600, dst, 0, token);

    assertThat(dst).isEqualTo(Arrays.copyOfRange(SMALL, 100, 600));
    assertThat(store.ranges()).containsExactly("100-600");
    Response r = store.responses().get(0);
    assertThat(r.bytesRead()).as("the bytes before the range skipped, none after it read").isEqualTo(600);
    assertThat(r.aborted()).as("the rest is dropped with the connection").isTrue();
  }

  /** A 200 with the whole of {@code data} and no Content-Length (chunked), whatever was asked. */
  private Answer wholeObjectChunked(byte[] data) {
    return (start, end) -> new Response(200, null, -1, data.clone(), -1, false, store.etag());
  }

  /**
   * A range from byte 0 that ends before the object does (the first part of a block read in parts, a
   * vectored range at 0): the body goes on past it, chunked or not. The range is taken, the rest is
   * dropped with the connection, never read and never refused as a body too long for its range.
   */
  @Test
  void a200WithAWholeObjectOfOneBlockIsReadForARangeFromItsStart() throws IOException {
    store.then(wholeObjectChunked(SMALL)).then(wholeObject(SMALL));
    for (int i = 0; i < 2; i++) {
      byte[] dst = new byte[300];

      reader.read(open(SMALL, "\"v1\""), 0, 300, dst, 0, token);

      assertThat(dst).as("response %d", i).isEqualTo(Arrays.copyOfRange(SMALL, 0, 300));
      Response r = store.responses().get(i);
      assertThat(r.bytesRead()).as("response %d: none after the range read", i).isEqualTo(300);
      assertThat(r.aborted()).as("response %d: the rest is dropped with the connection", i).isTrue();
      assertThat(r.closed()).as("response %d: never drained to reuse the connection", i).isFalse();
    }
    assertThat(store.ranges()).containsExactly("0-300", "0-300");
    assertThat(stats.get(Counter.RETRIES)).isZero();
  }

  @Test
  void a200ChunkedIsReadThroughToTheRangeAndARetryTakesTheRestFromAnother() throws IOException {
    // the first whole-object answer is cut at byte 450: the retry asks for 450-800, answered whole again
    store.then((start, end) -> new Response(200, null, -1, SMALL.clone(), 450, false, store.etag()))
        .then(wholeObjectChunked(SMALL));
    byte[] dst = new byte[700];

    reader.read(open(SMALL, "\"v1\""), 100, 800, dst, 0, token);

    assertThat(dst).isEqualTo(Arrays.copyOfRange(SMALL, 100, 800));
    assertThat(store.ranges()).containsExactly("100-800", "450-800");
    assertThat(stats.retries(RetryCause.TRUNCATED)).isEqualTo(1);
    assertThat(store.responses().get(1).bytesRead()).isEqualTo(800);
    assertThat(store.responses().get(1).aborted()).isTrue();
  }

  @Test
  void a200ChunkedReadToTheObjectsEndMustEndThere() throws IOException {
    byte[] longer = Arrays.copyOf(SMALL, SMALL.length + 10); // a body longer than the object it says it is
    store.then(wholeObjectChunked(SMALL)).then(wholeObjectChunked(longer));

    byte[] dst = new byte[400];
    reader.read(open(SMALL, "\"v1\""), 600, 1000, dst, 0, token);
    assertThat(dst).isEqualTo(Arrays.copyOfRange(SMALL, 600, 1000));
    assertThat(store.responses().get(0).closed()).as("read to its end: the connection is kept").isTrue();

    assertThatThrownBy(() -> reader.read(open(SMALL, "\"v1\""), 600, 1000, new byte[400], 0, token))
        .isExactlyInstanceOf(IOException.class)
        .hasMessageContaining("GET s3://b/k bytes 600-999: the body goes on past");
    assertThat(store.responses().get(1).aborted()).isTrue();
  }

  @Test
  void a200WithAWholeObjectOfMoreThanOneBlockIsRefused() {
    store.then(wholeObject(LARGE));
    byte[] dst = new byte[1024];

    assertThatThrownBy(() -> reader.read(open(LARGE, "\"v1\""), 1024, 2048, dst, 0, token))
        .isExactlyInstanceOf(IOException.class)
        .hasMessageStartingWith("GET s3://b/k bytes 1024-2047: the server answered 200 with the whole object"
            + " (4096 bytes) instead of 206 with the range: it ignores Range requests");
    assertThat(store.ranges()).containsExactly("1024-2048");
    assertThat(store.responses().get(0).bytesRead()).isZero();
    assertThat(store.responses().get(0).aborted()).isTrue();
    assertThat(dst).containsOnly(0);
    assertThat(stats.get(Counter.RETRIES)).isZero();
  }

  @Test
  void aStatusNeither206Nor200IsRefused() {
    store.then((start, end) -> new Response(204, null, 0, new byte[0], -1, false, store.etag()));

    assertThatThrownBy(() -> reader.read(open(LARGE, "\"v1\""), 0, 10, new byte[10], 0, token))
        .isExactlyInstanceOf(IOException.class)
        .hasMessage("GET s3://b/k bytes 0-9: the server answered 204, neither 206 (the range) nor 200 (the whole"
            + " object); its bytes are not used");
    assertThat(store.ranges()).containsExactly("0-10");
  }

  @Test
  void anETagQuotedAndTheSameBareAreOneVersion() throws IOException {
    ObjectHandle quotedAtOpen = open(LARGE, "\"af31\"");
    ObjectHandle bareAtOpen = open(LARGE, "af31");
    store.then((start, end) -> store.whole().to(start, end).etag("af31"))
        .then((start, end) -> store.whole().to(start, end).etag("\"af31\""));
    byte[] a = new byte[10];
    byte[] b = new byte[10];

    reader.read(quotedAtOpen, 0, 10, a, 0, token);
    reader.read(bareAtOpen, 10, 20, b, 0, token);

    assertThat(a).isEqualTo(Arrays.copyOfRange(LARGE, 0, 10));
    assertThat(b).isEqualTo(Arrays.copyOfRange(LARGE, 10, 20));
    assertThat(store.ranges()).containsExactly("0-10", "10-20");
    assertThat(quotedAtOpen.etag()).isEqualTo(bareAtOpen.etag()).isEqualTo("\"af31\"");
  }

  @Test
  void anotherETagIsAnotherVersionAndNotRetried() {
    store.then((start, end) -> store.whole().to(start, end).etag("\"v2\""));
    byte[] dst = new byte[10];

    assertThatThrownBy(() -> reader.read(open(LARGE, "\"v1\""), 0, 10, dst, 0, token))
        .isExactlyInstanceOf(ObjectChangedException.class)
        .hasMessageContaining("ETag \"v1\" at open, now \"v2\"");
    assertThat(store.ranges()).containsExactly("0-10");
    assertThat(store.responses().get(0).bytesRead()).isZero();
    assertThat(dst).containsOnly(0);
  }

  @Test
  void withoutAnETagTheFirstResponsePinsTheVersionAndLastModifiedDecides() throws IOException {
    Instant written = Instant.parse("2026-11-25T10:00:00Z");
    ObjectHandle h = open(LARGE, null);
    store.then((start, end) -> store.whole().to(start, end).etag(null).lastModified(written))
        .then((start, end) -> store.whole().to(start, end).etag(null).lastModified(written.plusMillis(400)))
        .then((start, end) -> store.whole().to(start, end).etag(null).lastModified(written.plusSeconds(3600)));
    byte[] dst = new byte[10];

    reader.read(h, 0, 10, dst, 0, token);
    reader.read(h, 10, 20, dst, 0, token); // the same second: HTTP dates have no finer precision

    assertThat(dst).isEqualTo(Arrays.copyOfRange(LARGE, 10, 20));
    assertThat(h.etag()).isNull();
    assertThat(h.unmodifiedSince()).as("what the next GET sends as If-Unmodified-Since").isEqualTo(written);
    assertThatThrownBy(() -> reader.read(h, 20, 30, new byte[10], 0, token))
        .isExactlyInstanceOf(ObjectChangedException.class)
        .hasMessageContaining("Last-Modified 2026-11-25T10:00:00Z at open, now 2026-11-25T11:00:00Z"
            + " (the server sends no ETag)");
    assertThat(store.ranges()).containsExactly("0-10", "10-20", "20-30");
  }
}
