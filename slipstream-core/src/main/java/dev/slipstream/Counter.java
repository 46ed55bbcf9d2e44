/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/** The counters every stream keeps (DESIGN.md section 6); retries by cause are kept beside them. */
public enum Counter {
  /** Bytes returned to the caller. */
  BYTES_READ("bytes_read"),
  /** Bytes received from S3, including partial bodies of failed attempts. */
  BYTES_FETCHED("bytes_fetched"),
  /** GET requests sent, retries included. */
  GET_REQUESTS("get_requests"),
  /** HEAD requests sent. */
  HEAD_REQUESTS("head_requests"),
  /** Retries, all causes. */
  RETRIES("retries"),
  /** Nanoseconds the caller spent waiting for bytes not yet in memory. */
  WAIT_NANOS("wait_nanos"),
  /** Blocks fetched ahead that the caller then read. */
  PREFETCH_USED("prefetch_used"),
  /** Blocks fetched ahead (or being fetched) that were dropped unread: a seek, close, or memory pressure. */
  PREFETCH_WASTED("prefetch_wasted"),
  /** Idle blocks given back to the pool early because another stream needed memory. */
  BLOCKS_EVICTED("blocks_evicted"),
  /** Small random reads served by a GET of exactly the bytes asked for, bypassing the blocks. */
  DIRECT_READS("direct_reads"),
  /** Streams opened. */
  STREAMS_OPENED("streams_opened"),
  /** Open-ahead: first blocks of hinted objects whose fetch was started before they were opened. */
  OPEN_AHEAD_STARTED("open_ahead_started"),
  /** Open-ahead: prepared first blocks handed to the stream that opened their object. */
  OPEN_AHEAD_USED("open_ahead_used"),
  /**
   * Open-ahead: prepared first blocks dropped unused: never opened (a wrong guess), pushed out by newer
   * hints, left unused too long, failed, evicted, opened as another version, or the client closed.
   */
  OPEN_AHEAD_WASTED("open_ahead_wasted"),
  /** Open-ahead: hinted objects not fetched ahead because memory was short. */
  OPEN_AHEAD_SKIPPED_MEMORY("open_ahead_skipped_memory");

  private final String metricName;

  Counter(String metricName) {
    this.metricName = metricName;
  }

  /** The snake_case name used in JSON and metric exports. */
  public String metricName() {
    return metricName;
  }
}
