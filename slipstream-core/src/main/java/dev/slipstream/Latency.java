/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * What Slipstream times, each kept as a histogram by a client's and the JVM's {@link ReadStatistics}
 * (see {@link ReadStatistics#latency(Latency)}). Each attempt of a request is one sample; a request
 * that failed is not.
 */
public enum Latency {
  /** A HEAD request Slipstream made (S3A's own HEADs through Hadoop are S3A's). */
  HEAD("head"),
  /** A GET, from sending it to its response's head: what the link and the store take before a byte. */
  GET_FIRST_BYTE("get_first_byte"),
  /** A GET read whole, from sending it to its last byte. */
  GET("get"),
  /** One LIST page. */
  LIST("list"),
  /** A read from the local disk cache that found its bytes (file read and CRC check, not S3's access check). */
  DISK_CACHE_READ("disk_cache_read"),
  /** A lookup of one block in the shared tier, answered or not (a timeout counts as its deadline). */
  SHARED_GET("shared_get"),
  /** A caller's read that had to wait for bytes (a block being fetched, a range, a GET). */
  READ_WAIT("read_wait");

  private final String metricName;

  Latency(String metricName) {
    this.metricName = metricName;
  }

  /** Lower-case name for metrics, e.g. {@code get_first_byte}. */
  public String metricName() {
    return metricName;
  }
}
