/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.RetryCause;
import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/** What broke a response body being read, for the retry statistics: one answer for every GET that reads one. */
final class BodyFailures {
  private BodyFailures() {}

  static RetryCause classify(IOException e) {
    if (e instanceof SocketTimeoutException) {
      return RetryCause.STALL;
    }
    String name = e.getClass().getName();
    String msg = String.valueOf(e.getMessage());
    if (name.endsWith("ConnectionClosedException") || name.endsWith("TruncatedChunkException")
        || msg.contains("Premature end")) {
      return RetryCause.TRUNCATED;
    }
    if (e instanceof SocketException || e instanceof javax.net.ssl.SSLException) {
      return RetryCause.CONNECTION_RESET;
    }
    return RetryCause.OTHER;
  }
}
