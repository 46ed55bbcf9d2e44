/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.function.Predicate;

/**
 * The faults queued by {@link LinkShaper#injectNext}, which take precedence over random ones. Each is
 * one shot; a request takes the oldest queued fault it matches.
 */
final class FaultScript {
  private record Scripted(FaultKind kind, Predicate<RequestInfo> match) {}

  private final Deque<Scripted> scripted = new ArrayDeque<>();

  void add(FaultKind kind, Predicate<RequestInfo> match) {
    synchronized (scripted) {
      scripted.addLast(new Scripted(kind, match));
    }
  }

  /** Removes and returns the oldest fault whose predicate matches {@code info}; null if none does. */
  FaultKind take(RequestInfo info) {
    synchronized (scripted) {
      for (Iterator<Scripted> it = scripted.iterator(); it.hasNext(); ) {
        Scripted s = it.next();
        if (s.match().test(info)) {
          it.remove();
          return s.kind();
        }
      }
    }
    return null;
  }
}
