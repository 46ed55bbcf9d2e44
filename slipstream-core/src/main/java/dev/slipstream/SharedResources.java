/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.fetch.FetchExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memory pool and executor: one pair per JVM, or one per isolated client.
 *
 * <p>The JVM's pair is sized by the first client, and every later client shares it as it is: one
 * budget for the JVM is the point (rule 4), and refusing a second client that asks for another would
 * fail an engine that merely configures two FileSystems differently. A later client that sets
 * {@code memory.max} or {@code fetch.threads} itself, to another value, is told once per JVM that it
 * shares the first client's (a default is no request, so it is never reported); a client that needs
 * a budget of its own asks for {@link Slipstream.Builder#isolatedResources()}.
 */
final class SharedResources {
  /** Slipstream's logger: what it says is said of the client. */
  private static final Logger LOG = LoggerFactory.getLogger("dev.slipstream.Slipstream");

  private static SharedResources jvm;
  /** Whether a later client's own, different budget has been reported: once per JVM, then at DEBUG. */
  private static boolean otherBudgetReported;

  final BufferPool pool;
  final FetchExecutor executor;
  final long budget;
  final int threads;

  SharedResources(SlipstreamConfig config) {
    this.budget = config.memoryMax();
    this.threads = config.fetchThreads();
    this.pool = new BufferPool(budget);
    this.executor = new FetchExecutor(threads);
  }

  /** {@code config} sets {@code key} itself (not by default) to a value other than the JVM's. */
  private static boolean asksForOther(SlipstreamConfig config, ConfigKey key, long asked, long jvmValue) {
    return config.get(key).isPresent() && asked != jvmValue;
  }

  static synchronized SharedResources jvm(SlipstreamConfig config) {
    if (jvm == null) {
      jvm = new SharedResources(config);
      LOG.info("Slipstream: JVM-wide memory budget {} MiB, {} fetch threads, block size {} KiB, prefetch up to {} blocks",
          jvm.budget >> 20, jvm.threads, config.blockSize() >> 10, config.prefetchBlocks());
    } else if (asksForOther(config, ConfigKey.MEMORY_MAX, config.memoryMax(), jvm.budget)
        || asksForOther(config, ConfigKey.FETCH_THREADS, config.fetchThreads(), jvm.threads)) {
      String message = "Slipstream: this client shares the JVM's memory budget and fetch threads, sized by the"
          + " first client at {} bytes and {} threads; its own memory.max={} and fetch.threads={} are not"
          + " applied (Slipstream.Builder.isolatedResources() gives a client its own). Said once per JVM.";
      if (otherBudgetReported) {
        LOG.debug(message, jvm.budget, jvm.threads, config.memoryMax(), config.fetchThreads());
      } else {
        otherBudgetReported = true;
        LOG.warn(message, jvm.budget, jvm.threads, config.memoryMax(), config.fetchThreads());
      }
    }
    return jvm;
  }
}
