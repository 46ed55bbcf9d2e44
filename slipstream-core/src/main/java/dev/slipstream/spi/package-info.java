/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * What a module plugs into the core: {@link dev.slipstream.spi.SharedBlockStore}, the store behind the
 * shared block tier.
 */
package dev.slipstream.spi;
