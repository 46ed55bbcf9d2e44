/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.S3Location;
import dev.slipstream.internal.util.ETag;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory {@link ObjectStore} holding one object version, whose GETs are answered as a script says:
 * no server. Each GET takes the next answer queued ({@link #then}); with none queued, it is served whole
 * ({@link #whole}). Every GET is recorded with its headers and the thread that sent it ({@link #gets}),
 * and every HEAD counted, so that a test asserts exactly the requests a read made.
 *
 * <p>Thread-safe: fetch threads, and hedges, send GETs at once. A GET takes its answer in the order GETs
 * arrive, under the store's lock, and runs it after letting go of the lock: an answer may block its own
 * GET (on a latch the test opens, as a server slow to answer) without holding up the next GET.
 */
public final class ScriptedStore implements ObjectStore {
  /** The object's bytes: {@code n} of them, each a function of its offset. */
  public static byte[] bytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7 + (i >>> 8));
    }
    return b;
  }

  /** One GET as it was sent: its range {@code [start, end)}, its conditions, and the thread that sent it. */
  public record Get(S3Location location, long start, long end, ETag ifMatch, Instant ifUnmodifiedSince,
      Thread thread) {
    /** {@code "start-end"}, end exclusive. */
    public String range() {
      return start + "-" + end;
    }
  }

  /** One response to a GET of {@code [start, end)}; may throw, as a store's failure, or block, as a slow one. */
  @FunctionalInterface
  public interface Answer {
    Response to(long start, long end) throws IOException;
  }

  private final byte[] data;
  private final ETag etag;
  private final Deque<Answer> answers = new ArrayDeque<>();
  private final List<Get> gets = new ArrayList<>();
  private final List<Response> responses = new ArrayList<>();
  private int heads;

  /** @param etag the version's ETag as the server sends it, or null for a server that sends none */
  public ScriptedStore(byte[] data, String etag) {
    this.data = data;
    this.etag = etag == null ? null : ETag.parse(etag);
  }

  public byte[] data() {
    return data;
  }

  /** The version's ETag as the store names it in its responses, or null for none. */
  public ETag etag() {
    return etag;
  }

  /** Bytes {@code [start, end)} of the object. */
  public byte[] data(long start, long end) {
    return Arrays.copyOfRange(data, (int) start, (int) end);
  }

  /** Queues {@code a} to answer the next GET not yet answered by an earlier one. */
  public synchronized ScriptedStore then(Answer a) {
    answers.add(a);
    return this;
  }

  /** The range served as asked, its body running out (EOF) or failing (reset) after {@code cut} bytes if not -1. */
  public Answer serve(int cut, boolean reset) {
    return (start, end) -> response(start, end, data(start, end), cut, reset);
  }

  /**
   * The 206 a GET of {@code [start, end)} gets, its head right (Content-Range, Content-Length, ETag) and
   * {@code body} as its bytes, whether or not they are the object's.
   */
  public Response response(long start, long end, byte[] body) {
    return response(start, end, body, -1, false);
  }

  private Response response(long start, long end, byte[] body, int cut, boolean reset) {
    return new Response(206, "bytes " + start + "-" + (end - 1) + "/" + data.length, end - start, body, cut, reset,
        etag);
  }

  /** The range served as asked. */
  public Answer whole() {
    return serve(-1, false);
  }

  /** The store's failure, thrown by the GET. */
  public static Answer fail(IOException e) {
    return (start, end) -> {
      throw e;
    };
  }

  @Override
  public Body get(S3Location location, long start, long end, Version version) throws IOException {
    Answer a;
    synchronized (this) {
      gets.add(new Get(location, start, end, version.ifMatch(), version.ifUnmodifiedSince(), Thread.currentThread()));
      a = answers.poll();
    }
    Response r = (a != null ? a : whole()).to(start, end); // not under the lock: it may block
    synchronized (this) {
      responses.add(r);
    }
    return r;
  }

  /** The GETs sent so far, in the order they reached the store. */
  public synchronized List<Get> gets() {
    return List.copyOf(gets);
  }

  /** The ranges of the GETs sent so far ({@link Get#range}), in the order they reached the store. */
  public synchronized List<String> ranges() {
    return gets.stream().map(Get::range).toList();
  }

  /** The responses given so far, in the order they were given. */
  public synchronized List<Response> responses() {
    return List.copyOf(responses);
  }

  /** HEADs asked for so far. */
  public synchronized int heads() {
    return heads;
  }

  /** Forgets the requests recorded so far (not the answers queued). */
  public synchronized void forget() {
    gets.clear();
    responses.clear();
    heads = 0;
  }

  @Override
  public synchronized ObjectMetadata head(S3Location location) {
    heads++;
    return new ObjectMetadata(data.length, etag, null);
  }

  @Override
  public ListPage list(ListRequest request) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void close() {}

  /**
   * A response body as scripted: what it says it holds, and its bytes, cut short if so scripted. Its
   * ETag and Last-Modified may be set ({@link #etag(String)}, {@link #lastModified(Instant)}) before it is
   * handed out.
   */
  public static final class Response implements ObjectStore.Body {
    private final int status;
    private final String contentRange;
    private final long contentLength;
    private final byte[] bytes;
    private final int cut;
    private final boolean reset;
    private ETag etag;
    private Instant lastModified;
    private volatile int pos;
    private volatile boolean aborted;
    private volatile boolean closed;
    /** Opens at the first abort or close. */
    private final CountDownLatch ended = new CountDownLatch(1);

    /**
     * @param cut bytes served before the body ends (or fails, with {@code reset}); -1 for all of them
     * @param etag the ETag the response names, or null for none
     */
    public Response(int status, String contentRange, long contentLength, byte[] bytes, int cut, boolean reset,
        ETag etag) {
      this.status = status;
      this.contentRange = contentRange;
      this.contentLength = contentLength;
      this.bytes = bytes;
      this.cut = cut < 0 ? bytes.length : cut;
      this.reset = reset;
      this.etag = etag;
    }

    /** The response sends {@code value} as its ETag header, as spelled (null: no ETag). */
    public Response etag(String value) {
      this.etag = ETag.fromServer(value);
      return this;
    }

    /** The response sends this Last-Modified (null: none). */
    public Response lastModified(Instant value) {
      this.lastModified = value;
      return this;
    }

    /** Bytes of the body read so far. */
    public int bytesRead() {
      return pos;
    }

    /** Waits up to {@code timeout} for the response to be aborted or closed; true if it was. */
    public boolean awaitEnd(long timeout, TimeUnit unit) throws InterruptedException {
      return ended.await(timeout, unit);
    }

    public boolean aborted() {
      return aborted;
    }

    public boolean closed() {
      return closed;
    }

    @Override
    public InputStream stream() {
      return new InputStream() {
        @Override
        public int read() throws IOException {
          byte[] one = new byte[1];
          return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          if (aborted) {
            throw new IOException("aborted");
          }
          if (pos >= cut) {
            if (reset && cut < bytes.length) {
              throw new SocketException("Connection reset");
            }
            return -1;
          }
          int n = Math.min(len, cut - pos);
          System.arraycopy(bytes, pos, b, off, n);
          pos += n;
          return n;
        }
      };
    }

    @Override
    public int status() {
      return status;
    }

    @Override
    public ETag etag() {
      return etag;
    }

    @Override
    public Instant lastModified() {
      return lastModified;
    }

    @Override
    public long contentLength() {
      return contentLength;
    }

    @Override
    public String contentRange() {
      return contentRange;
    }

    @Override
    public void abort() {
      aborted = true;
      ended.countDown();
    }

    @Override
    public void close() {
      closed = true;
      ended.countDown();
    }
  }
}
