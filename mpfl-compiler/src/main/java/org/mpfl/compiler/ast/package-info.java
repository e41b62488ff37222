/** The located syntax trees: document elements with attributes, and untyped expressions. */
package org.mpfl.compiler.ast;
