/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.ObjectChangedException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.AccessDeniedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one gate between a cache and the caller of an open stream: has S3 answered this open, with this
 * process's credentials, for this object (docs/architecture.md, rule 8)?
 *
 * <p>Why: a cache saves bytes, never a permission check. Opened with a known length and ETag (a listing,
 * Hadoop's {@code withFileStatus}), a stream could otherwise be served entirely from a disk cache that
 * another job, with other S3 keys, filled. Any successful response of the open (the HEAD, any GET)
 * passes the gate for good. Until then, the first cache hit starts one conditional 1-byte GET ({@code
 * If-Match} the ETag of the open), shared by every reader of the open, that runs alongside the disk
 * read; the cached bytes are returned only once it has succeeded. A 403, 404 or 412 answer is final for
 * the open and fails every cached read with it; any other failure lets the next hit try again.
 *
 * <p>An answer this client got for the same version within {@code access.ttl} before the open (see
 * {@link RecentAnswers}) passes the gate too, with no request.
 */
public final class AccessCheck {
  private volatile boolean granted;
  private final java.util.function.BooleanSupplier answeredRecently;
  private final AtomicReference<Probe> probe = new AtomicReference<>();

  /** @param answeredRecently whether this client has a standing answer for the version the open reads */
  AccessCheck(java.util.function.BooleanSupplier answeredRecently) {
    this.answeredRecently = answeredRecently;
  }

  /** S3 answered a request of this open with success. */
  void grant() {
    granted = true;
  }

  boolean granted() {
    if (!granted && answeredRecently.getAsBoolean()) {
      granted = true; // for the rest of the open, as an answer within it would be
    }
    return granted;
  }

  /**
   * Starts the probe if the gate is not yet passed and none runs: {@code submit} is asked to run it in
   * the background (it may decline; the first waiter then runs it). Returns the probe to wait for, or
   * null if the gate is passed.
   */
  Probe start(IoWork send, java.util.function.Consumer<Probe> submit) {
    while (!granted()) {
      Probe p = probe.get();
      if (p != null && !p.retryable()) {
        return p;
      }
      Probe fresh = new Probe(send);
      if (probe.compareAndSet(p, fresh)) {
        submit.accept(fresh);
        return fresh;
      }
    }
    return null;
  }

  /** One conditional 1-byte GET; runs once, on whichever thread gets to it first. */
  static final class Probe {
    private final IoWork send;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    Probe(IoWork send) {
      this.send = send;
    }

    void run() {
      if (!started.compareAndSet(false, true)) {
        return;
      }
      try {
        send.run();
        done.complete(null);
      } catch (Throwable t) {
        done.completeExceptionally(t);
      }
    }

    /** True if it failed in a way a new probe might not (not the store's final answer). */
    boolean retryable() {
      if (!done.isCompletedExceptionally()) {
        return false;
      }
      Throwable t = done.handle((v, e) -> e).join();
      return !(t instanceof AccessDeniedException || t instanceof FileNotFoundException
          || t instanceof ObjectChangedException);
    }

    /** Waits for the answer, running the probe here if no thread has started it yet (never deadlocks). */
    void await() throws IOException {
      run();
      try {
        done.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while S3 was asked for access to a cached object");
      } catch (ExecutionException e) {
        throw Failures.cause(e, "the access check");
      }
    }
  }
}
