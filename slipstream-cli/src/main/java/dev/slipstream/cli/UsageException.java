/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

/**
 * The command line asks for something that cannot be done as written: a bad S3 URI, an unknown or
 * invalid configuration value, a bad option value. Reported as one line, exit code 2.
 */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }

  UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
