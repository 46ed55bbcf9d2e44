/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;

/** A way of reading S3 that the benchmark compares: S3A with one of its streams, or Slipstream. */
interface Reader {
  /** The name in reports and on the command line, e.g. {@code s3a-classic}. */
  String name();

  /** How it is set up, in one line, for the report. */
  String description();

  /** A fresh session (FileSystem instance or client) on {@code target}, for one run. */
  ReadSession open(Target target) throws IOException;

  /**
   * As {@link #open(Target)}, with Slipstream settings (keys without prefix) a workload asks for; readers
   * that are not Slipstream ignore them.
   */
  default ReadSession open(Target target, java.util.Map<String, String> slipstreamSettings) throws IOException {
    return open(target);
  }
}
