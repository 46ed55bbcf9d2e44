/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.awt.Color;

/**
 * The colour of each reader in every chart: the S3A streams in greys and slate blues, Slipstream's two
 * readers in orange, so that Slipstream's bars stand apart at a glance.
 */
final class ReaderPalette {
  private ReaderPalette() {}

  static Color of(String reader) {
    return switch (reader) {
      case Readers.S3A_CLASSIC -> new Color(0x8a, 0x94, 0x9e);
      case Readers.S3A_PREFETCH -> new Color(0x9f, 0xb6, 0xcd);
      case Readers.S3A_ANALYTICS -> new Color(0x4a, 0x5d, 0x73);
      case Readers.SLIPSTREAM -> new Color(0xe0, 0x5a, 0x00);
      case Readers.SLIPSTREAM_CORE -> new Color(0xf5, 0xa6, 0x23);
      default -> Color.GRAY;
    };
  }

  /** The same colour, pale: for a bar whose figure is noise. */
  static Color faded(Color c) {
    return new Color(c.getRed(), c.getGreen(), c.getBlue(), 80);
  }

  /** As a CSS colour. */
  static String css(String reader) {
    Color c = of(reader);
    return String.format("#%02x%02x%02x", c.getRed(), c.getGreen(), c.getBlue());
  }
}
