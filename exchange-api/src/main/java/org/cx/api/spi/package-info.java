/** Hooks for the CX runtime only; applications do not use this package. */
package org.cx.api.spi;
