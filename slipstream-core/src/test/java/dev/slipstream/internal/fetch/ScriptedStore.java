/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.S3Location;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.util.ETag;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * An object store whose GETs are answered in turn by the answers queued, in memory: no server. It records
 * each range asked for ({@code "start-end"}), the thread that asked, and each response handed out. GETs
 * may come from several threads at once (hedging): an answer is taken in the order the GETs arrive, and
 * may block its GET (until a latch opens, say) without holding up the next.
 */
final class ScriptedStore implements ObjectStore {
  /** One answer to a GET of {@code [start, end)}: a response, or the store's error. */
  @FunctionalInterface
  interface Answer {
    Response to(long start, long end) throws IOException;
  }

  private final Deque<Answer> answers = new ArrayDeque<>(); // guarded by this
  final List<String> requests = new CopyOnWriteArrayList<>();
  final List<Thread> threads = new CopyOnWriteArrayList<>();
  final List<Response> responses = new CopyOnWriteArrayList<>();

  synchronized ScriptedStore then(Answer a) {
    answers.add(a);
    return this;
  }

  @Override
  public Body get(S3Location location, long start, long end, ETag ifMatch, Instant ifUnmodifiedSince)
      throws IOException {
    Answer a;
    synchronized (this) {
      requests.add(start + "-" + end);
      threads.add(Thread.currentThread());
      a = answers.remove();
    }
    Response r = a.to(start, end);
    responses.add(r);
    return r;
  }

  /** Forgets the requests and responses seen so far. */
  void forget() {
    requests.clear();
    threads.clear();
    responses.clear();
  }

  @Override
  public ObjectMetadata head(S3Location location) {
    throw new UnsupportedOperationException();
  }

  @Override
  public ListPage list(ListRequest request) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void close() {}

  /**
   * One response as served: {@code bytes} as its body, which runs out (EOF) or fails (reset) after
   * {@code cut} bytes if {@code cut} is not -1. Its ETag is {@code v1} (sent bare) unless set otherwise.
   */
  static final class Response implements ObjectStore.Body {
    private final int status;
    private final String contentRange;
    private final long contentLength;
    private final byte[] bytes;
    private final int cut;
    private final boolean reset;
    private ETag etag = ETag.parse("v1");
    private Instant lastModified;
    private volatile int pos;
    volatile boolean aborted;
    volatile boolean closed;
    /** Opens at the first abort or close. */
    final CountDownLatch ended = new CountDownLatch(1);

    Response(int status, String contentRange, long contentLength, byte[] bytes, int cut, boolean reset) {
      this.status = status;
      this.contentRange = contentRange;
      this.contentLength = contentLength;
      this.bytes = bytes;
      this.cut = cut < 0 ? bytes.length : cut;
      this.reset = reset;
    }

    /** The response sends {@code value} as its ETag header, as spelled (null: no ETag). */
    Response etag(String value) {
      this.etag = ETag.fromServer(value);
      return this;
    }

    /** The response sends this Last-Modified (null: none). */
    Response lastModified(Instant value) {
      this.lastModified = value;
      return this;
    }

    /** Bytes of the body read so far. */
    int bytesRead() {
      return pos;
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
