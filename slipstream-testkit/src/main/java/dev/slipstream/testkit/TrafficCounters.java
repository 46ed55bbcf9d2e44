/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a {@link LinkShaper} has seen and done, as its public counters report it. Updated by every
 * connection thread at the place the event happens, so adders rather than locks.
 */
final class TrafficCounters {
  private final LongAdder requests = new LongAdder();
  private final ConcurrentHashMap<String, LongAdder> requestsByMethod = new ConcurrentHashMap<>();
  private final LongAdder[] faults = new LongAdder[FaultKind.values().length];
  private final AtomicInteger activeRequests = new AtomicInteger();
  private final AtomicInteger openClientConnections = new AtomicInteger();
  private final LongAdder bytesSent = new LongAdder();

  TrafficCounters() {
    for (int i = 0; i < faults.length; i++) {
      faults[i] = new LongAdder();
    }
  }

  /** A request with {@code method} (upper case) has arrived. */
  void requestReceived(String method) {
    requests.increment();
    requestsByMethod.computeIfAbsent(method, m -> new LongAdder()).increment();
  }

  void faultInjected(FaultKind kind) {
    faults[kind.ordinal()].increment();
  }

  void requestStarted() {
    activeRequests.incrementAndGet();
  }

  void requestEnded() {
    activeRequests.decrementAndGet();
  }

  void clientConnectionOpened() {
    openClientConnections.incrementAndGet();
  }

  void clientConnectionClosed() {
    openClientConnections.decrementAndGet();
  }

  void bytesSent(long n) {
    bytesSent.add(n);
  }

  long requests() {
    return requests.sum();
  }

  /** Requests received with {@code method}, case ignored. */
  long requests(String method) {
    LongAdder n = requestsByMethod.get(method.toUpperCase(Locale.ROOT));
    return n == null ? 0 : n.sum();
  }

  long faultsInjected(FaultKind kind) {
    return faults[kind.ordinal()].sum();
  }

  long faultsInjected() {
    long total = 0;
    for (LongAdder f : faults) {
      total += f.sum();
    }
    return total;
  }

  int activeRequests() {
    return activeRequests.get();
  }

  int openClientConnections() {
    return openClientConnections.get();
  }

  long bytesSent() {
    return bytesSent.sum();
  }
}
