/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one-shot actions registered by {@link LinkShaper#onRequest}. They run on the connection's thread
 * outside the lock, so a slow action holds up only the request it was waiting for.
 */
final class RequestHooks {
  // Logged under LinkShaper's name, which is what users configure.
  private static final Logger LOG = LoggerFactory.getLogger(LinkShaper.class);

  private record Hook(Predicate<RequestInfo> match, Runnable action) {}

  private final List<Hook> hooks = new ArrayList<>();

  void add(Predicate<RequestInfo> match, Runnable action) {
    synchronized (hooks) {
      hooks.add(new Hook(match, action));
    }
  }

  /** Removes every hook matching {@code info} and runs it; a failing action is logged, not thrown. */
  void runMatching(RequestInfo info) {
    List<Hook> matched = new ArrayList<>();
    synchronized (hooks) {
      for (Iterator<Hook> it = hooks.iterator(); it.hasNext(); ) {
        Hook h = it.next();
        if (h.match().test(info)) {
          matched.add(h);
          it.remove();
        }
      }
    }
    for (Hook h : matched) {
      try {
        h.action().run();
      } catch (RuntimeException e) {
        LOG.warn("link shaper onRequest action failed for {} {}", info.method(), info.path(), e);
      }
    }
  }
}
