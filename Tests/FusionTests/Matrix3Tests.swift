import Fusion
import Testing

@Suite struct Matrix3Tests {
    let m = Matrix3(rows: SIMD3(2, 0, 1), SIMD3(1, 3, 0), SIMD3(0, 1, 4))

    @Test func inverseTimesMatrixIsIdentity() throws {
        let inverse = try #require(m.inverse)
        let product = inverse * m
        for i in 0..<3 { for j in 0..<3 { #expect(abs(product[i, j] - (i == j ? 1 : 0)) < 1e-12) } }
        #expect(m.determinant == 25)
    }

    @Test func matrixVectorAndTranspose() {
        #expect(m * SIMD3(1, 1, 1) == SIMD3(3, 4, 5))
        #expect(m.transposed.rowMajor == [2, 1, 0, 0, 3, 1, 1, 0, 4])
        #expect(Matrix3(rows: SIMD3(0, 0, 0), SIMD3(0, 0, 0), SIMD3(0, 0, 0)).inverse == nil)
    }

    @Test func properRotation() {
        let swapXY = Matrix3(rows: SIMD3(0, 1, 0), SIMD3(1, 0, 0), SIMD3(0, 0, 1))   // reflection
        let rotateZ90 = Matrix3(rows: SIMD3(0, -1, 0), SIMD3(1, 0, 0), SIMD3(0, 0, 1))
        #expect(!swapXY.isProperRotation())
        #expect(rotateZ90.isProperRotation())
        #expect(!m.isProperRotation())
    }

    @Test func offDiagonalAndZero() {
        #expect(m.offDiagonal.rowMajor == [0, 0, 1, 1, 0, 0, 0, 1, 0])
        #expect(Matrix3.zero.rowMajor == [Double](repeating: 0, count: 9))
        #expect(Matrix3(diagonal: SIMD3(2, 3, 4)) + m.offDiagonal == m)
    }
}
