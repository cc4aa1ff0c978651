// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice Read side of the identity registry: which user (an association of wallets) a wallet belongs to.
interface IIdentityRegistry {
    /// @return userId The wallet's user id, or zero when the wallet is not registered.
    function userIdOf(address wallet) external view returns (bytes32 userId);
}
