/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;

/**
 * One thing a job does with S3 data (docs/benchmarks.md), run the same way through every reader. A workload
 * puts its data into the server once ({@link #upload}); then, for each run, {@link #prepare} does what
 * happens before a task starts (a HEAD, as the job driver's listing would), and the returned {@link Run}
 * is timed and counted, then checks every byte it read against the source.
 */
interface Workload {
  /** The name in reports, e.g. {@code sequential}. */
  String name();

  /** What it does, in one line, for the report. */
  String description();

  /** Puts this workload's data into the server (shared objects only once, through the fixture). */
  void upload(Fixture fixture) throws IOException;

  /**
   * Slipstream settings (keys without prefix) this workload runs with, beyond the defaults; peers do
   * not see them. Empty for every workload but the re-read ones.
   */
  default java.util.Map<String, String> slipstreamSettings() {
    return java.util.Map.of();
  }

  /**
   * Why {@code reader} is not run on this workload, or null (the default) to run it: a listing workload
   * runs one S3A reader, as S3A's input streams play no part in listing.
   */
  default String notApplicable(String reader) {
    return null;
  }

  /**
   * Whether this workload's CPU column is the reader's own threads' CPU (see {@link ResourceMeter}) rather
   * than the process's; false (the default) for all but {@code sequential-warm}.
   */
  default boolean readerThreadCpu() {
    return false;
  }

  /**
   * Whether each reader runs this workload once, without warm-up, whatever the benchmark's rounds: a run
   * that is long and warms itself up (see {@link ManyObjectsWorkload}). False (the default) for the others.
   */
  default boolean measuredOnce() {
    return false;
  }

  /** Untimed set-up of one run on a fresh session. */
  Run prepare(ReadSession session, Fixture fixture) throws IOException;

  /**
   * A workload that reads on two hosts of a cluster: in its untimed set-up it runs another host, a process
   * of its own with the same reader and settings, against {@code target}, and says what it did on {@code
   * log} (the benchmark's progress); then the run is timed on {@code hostB}, this JVM's fresh session of
   * {@code reader}.
   */
  interface TwoHosts extends Workload {
    Run prepare(String reader, Target target, ReadSession hostB, Fixture fixture, java.io.PrintStream log)
        throws IOException;
  }

  /** One run of a workload. */
  interface Run {
    /** The measured part; returns the bytes the workload used (see {@link Result#bytesUsed()}). */
    long execute() throws IOException;

    /** After the measured part: null when every byte read was right, else what was wrong. */
    String verify() throws IOException;

    /** The heap after GC the run sampled as it went, or null (the default) where it sampled none. */
    default HeapCurve heapCurve() {
      return null;
    }
  }
}
