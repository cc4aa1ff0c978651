// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IIdentityRegistry} from "./interfaces/IIdentityRegistry.sol";

/// @title IdentityRegistry
/// @notice Maps a wallet to the user id (bytes32) it belongs to; a user may hold several wallets, a
/// wallet belongs to at most one user. Written only by REGISTRAR_ROLE (the issuer's key). Registering
/// a wallet again to the same user is a no-op, so the off-chain writer can retry safely.
contract IdentityRegistry is IIdentityRegistry, AccessControl {
    bytes32 public constant REGISTRAR_ROLE = keccak256("REGISTRAR_ROLE");

    mapping(address wallet => bytes32 userId) private _userIds;

    event WalletRegistered(address indexed wallet, bytes32 indexed userId);
    event WalletUnregistered(address indexed wallet, bytes32 indexed userId);

    error ZeroAddress();
    error ZeroUserId();
    error WalletRegisteredToAnotherUser(address wallet, bytes32 registeredUserId);
    error WalletNotRegistered(address wallet);

    /// @param admin Receives DEFAULT_ADMIN_ROLE (grants and revokes registrars).
    constructor(address admin) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
    }

    function userIdOf(address wallet) external view returns (bytes32) {
        return _userIds[wallet];
    }

    function register(address wallet, bytes32 userId) external onlyRole(REGISTRAR_ROLE) {
        if (wallet == address(0)) revert ZeroAddress();
        if (userId == bytes32(0)) revert ZeroUserId();
        bytes32 current = _userIds[wallet];
        if (current == userId) return;
        if (current != bytes32(0)) revert WalletRegisteredToAnotherUser(wallet, current);
        _userIds[wallet] = userId;
        emit WalletRegistered(wallet, userId);
    }

    function unregister(address wallet) external onlyRole(REGISTRAR_ROLE) {
        bytes32 current = _userIds[wallet];
        if (current == bytes32(0)) revert WalletNotRegistered(wallet);
        delete _userIds[wallet];
        emit WalletUnregistered(wallet, current);
    }
}
