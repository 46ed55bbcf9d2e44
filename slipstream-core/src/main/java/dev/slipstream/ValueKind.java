/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * The kind of a configuration key's values, as tools show it ({@link ConfigKey#type()}). Names of a
 * fixed set, shares, URIs and paths are {@code STRING}; a {@code SECRET} is never shown.
 *
 * <p>Its own type, not one nested in {@link ConfigKey}: each key's {@code ValueType} decides its kind,
 * and a kind nested in the enum of keys made the keys and their types depend on each other.
 */
public enum ValueKind { SIZE, INT, DURATION, BOOLEAN, STRING, SECRET }
