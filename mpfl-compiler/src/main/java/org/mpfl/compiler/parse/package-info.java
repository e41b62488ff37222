/**
 * Reading documents: secure XML with exact positions ({@link org.mpfl.compiler.parse.DocumentReader}),
 * the structure of MPFL 1.0 ({@link org.mpfl.compiler.parse.ElementCatalog},
 * {@link org.mpfl.compiler.parse.StructureValidator}) and expressions ({@link org.mpfl.compiler.parse.ExpressionParser}).
 */
package org.mpfl.compiler.parse;
