/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.util;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads Slipstream starts: daemons (they never keep a JVM alive), named for what they do and
 * numbered, so that a thread dump tells them apart ({@code slipstream-fetch-1-3}).
 */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** A factory of daemon threads named {@code prefix} and a number counted from 1. */
  public static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
