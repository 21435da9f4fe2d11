/** Helpers shared by CX tests: waiting on conditions, printed seeds, child processes. */
package org.cx.testing;
